import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedUpstream, startScriptedUpstream } from '../api/scripted-upstream.js';
import { runCliProcess } from '../support/cli-process.js';

// A Visa test number (passes the Luhn check) and a CVV.
const NUMBER = '4000005132522674';
const CVV = '731';

/** A valid card record to which the upstream added the card's secrets. */
const CARD = {
  cardId: 'card_1',
  merchantId: 'mch_1',
  cardOfferingId: 'off_1',
  lastFour: NUMBER.slice(-4),
  status: 'ACTIVE',
  balance: '10.00',
  currency: 'USD',
  createdAt: '2026-11-20T10:00:00.000Z',
  cardNumber: NUMBER,
  cvv: CVV,
};

describe('cards list and info against an upstream that adds the card number and CVV to a card', () => {
  let up: ScriptedUpstream;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    up = await startScriptedUpstream();
    dir = await mkdtemp(join(tmpdir(), 'cardsync-card-secrets-output-'));
    const caFile = join(dir, 'ca.pem');
    await writeFile(caFile, up.caPem);
    env = {
      CARDSYNC_BASE_URL: up.baseUrl,
      CARDSYNC_API_KEY: 'sk_test_scripted',
      CARDSYNC_API_KEY_FILE: '',
      CARDSYNC_CA_FILE: caFile,
      CARDSYNC_DB: join(dir, 'mirror.sqlite'),
    };
    up.answer((request, response) => {
      const list = request.url?.startsWith('/cards?') === true;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          list
            ? { data: [CARD], pagination: { total: 1, page: 1, limit: 20, totalPages: 1 } }
            : { data: CARD },
        ),
      );
    });
  });
  afterAll(async () => {
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints neither in --json, as cards sensitive does not without --reveal', async () => {
    for (const args of [
      ['cards', 'list', '--json'],
      ['cards', 'info', 'card_1', '--json'],
    ]) {
      const result = await runCliProcess(args, env);
      expect(result.code, result.stderr).toBe(0);
      const printed = JSON.parse(result.stdout) as { data?: unknown[] };
      expect(printed.data?.[0] ?? printed).toMatchObject({ cardId: 'card_1', lastFour: '2674' });
      expect(result.stdout).not.toContain(NUMBER);
      expect(result.stdout).not.toContain(`"cvv":"${CVV}"`);
    }
  });
});
