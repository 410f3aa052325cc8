import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** The sandbox's TLS identity: a throwaway CA, and a server certificate it signed. */
export interface TlsMaterial {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** The CA certificate as a file clients can trust. */
  readonly caFile: string;
}

const DAY_MS = 86_400_000;

async function createMaterial(
  now: Date,
): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const notAfter = (days: number) => new Date(now.getTime() + days * DAY_MS);
  const ca = await generate([{ name: 'commonName', value: 'cardsync sandbox throwaway CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - DAY_MS),
    notAfterDate: notAfter(365),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      {
        name: 'keyUsage',
        keyCertSign: true,
        cRLSign: true,
        digitalSignature: true,
        critical: true,
      },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - DAY_MS),
    notAfterDate: notAfter(90),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { caPem: ca.cert, certPem: server.cert, keyPem: server.private };
}

async function readIfUsable(dir: string, now: Date) {
  try {
    const [caPem, certPem, keyPem] = await Promise.all(
      ['ca.pem', 'server.pem', 'server-key.pem'].map((name) => readFile(join(dir, name), 'utf8')),
    );
    if (!caPem || !certPem || !keyPem) return undefined;
    const validTo = new Date(new X509Certificate(certPem).validTo).getTime();
    return validTo - now.getTime() > DAY_MS ? { caPem, certPem, keyPem } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The TLS identity for a run, written to `dir`: reused from there while valid when `reuse` is
 * set (a state directory), created afresh otherwise.
 */
export async function loadTlsMaterial(
  dir: string,
  reuse: boolean,
  now = new Date(),
): Promise<TlsMaterial> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const kept = reuse ? await readIfUsable(dir, now) : undefined;
  const material = kept ?? (await createMaterial(now));
  if (!kept) {
    await writeFile(join(dir, 'ca.pem'), material.caPem, { mode: 0o644 });
    await writeFile(join(dir, 'server.pem'), material.certPem, { mode: 0o644 });
    await writeFile(join(dir, 'server-key.pem'), material.keyPem, { mode: 0o600 });
  }
  return { ...material, caFile: join(dir, 'ca.pem') };
}
