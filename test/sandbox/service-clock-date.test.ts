import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

const DAY = 86_400_000;
/** The Date header has whole seconds, and requests take a moment: not a timing test. */
const TOLERANCE_MS = 5_000;

function dateOf(answer: ApiResponse): number {
  const header = answer.headers.date;
  expect(typeof header, `${answer.status} ${answer.text}`).toBe('string');
  const at = Date.parse(header as string);
  expect(Number.isNaN(at)).toBe(false);
  return at;
}

describe('the Date header follows the service clock', () => {
  let t: TestSandbox;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestSandbox();
    api = t.merchants[0] as ApiClient;
  });
  afterAll(async () => t.close());

  it('moves forward with the control surface clock, on success and error answers alike', async () => {
    const before = dateOf(await api.get('/merchants/balance'));
    expect(Math.abs(before - Date.now())).toBeLessThan(TOLERANCE_MS);

    const advanced = await t.control.post('/_control/clock', { advanceMs: 3 * DAY });
    expect(advanced.status).toBe(200);
    const serviceNow = Date.parse(advanced.body.now);

    const answers = [
      await api.get('/merchants/balance'),
      await api.get('/cards/info', { query: { cardId: 'card_nope' } }),
      await t.anonymous.get('/cards'),
      await t.control.get('/_control/clock'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 200]);
    for (const answer of answers) {
      const at = dateOf(answer);
      expect(Math.abs(at - serviceNow), `${answer.status} ${answer.text}`).toBeLessThan(
        TOLERANCE_MS,
      );
      expect(at - Date.now()).toBeGreaterThan(3 * DAY - TOLERANCE_MS);
    }
  });
});

describe('moving the service clock', () => {
  let t: TestSandbox;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestSandbox();
    api = t.merchants[0] as ApiClient;
  });
  afterAll(async () => t.close());

  it('refuses an advance past the last instant a timestamp can be written, and changes nothing', async () => {
    const before = await t.control.get('/_control/clock');
    expect(before.status).toBe(200);
    // A slip of a few zeros (a day is 86400000 ms): past year 9999, or past any safe number.
    for (const advanceMs of [9e15, 1e20]) {
      const refused = await t.control.post('/_control/clock', { advanceMs });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
    }
    const after = await t.control.get('/_control/clock');
    expect(after.status, after.text).toBe(200);
    expect(after.body.offsetMs).toBe(before.body.offsetMs);
    expect((await api.get('/cards')).status).toBe(200);
  });
});
