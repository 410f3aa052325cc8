import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkServerIdentity } from '../../src/api/check-server-identity.js';
import { loadTlsMaterial } from '../../src/sandbox/tls/certificates.js';

describe('checkServerIdentity', () => {
  let dir: string;
  // The sandbox's certificate: DNS localhost, IP 127.0.0.1 and ::1.
  let cert: PeerCertificate;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-identity-'));
    const { certPem } = await loadTlsMaterial(dir, false);
    cert = new X509Certificate(certPem).toLegacyObject() as PeerCertificate;
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.each(['::1', '0:0:0:0:0:0:0:1', '127.0.0.1', 'localhost'])(
    'accepts %s, which it names',
    (host) => {
      expect(checkServerIdentity(host, cert)).toBeUndefined();
    },
  );

  it.each(['::2', 'fe80::1', '127.0.0.2', 'cards.example.com'])(
    'refuses %s, which it does not name',
    (host) => {
      expect(checkServerIdentity(host, cert)).toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
    },
  );
});
