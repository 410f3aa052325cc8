import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';
import { rawCall } from './raw-call.js';

describe('fault lab: the control surface', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'fault-control' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('starts off, adds rules with generated ids, lists them with remaining counts, and resets', async () => {
    expect((await t.control.get('/_control/faults')).body).toEqual({ active: false, rules: [] });
    const added = await t.control.post('/_control/faults', { kind: 'reset', times: 2 });
    expect(added.status).toBe(201);
    expect(added.body.rule).toEqual({
      id: 'rule-1',
      kind: 'reset',
      times: 2,
      calls: 0,
      fired: 0,
      remaining: 2,
    });
    const second = await t.control.post('/_control/faults', {
      id: 'slow',
      kind: 'latency',
      ms: 1,
      match: { operation: '*' },
    });
    expect(second.body.rule.id).toBe('slow');
    const duplicate = await t.control.post('/_control/faults', { id: 'slow', kind: 'truncate' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.message).toEqual(['rule.id "slow" is already in use']);

    const replaced = await t.control.call('PUT', '/_control/faults', {
      body: {
        rules: [
          { kind: 'page-size', max: 10 },
          { kind: 'rate-limit', times: 3 },
        ],
      },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.active).toBe(true);
    expect(
      replaced.body.rules.map((r: { id: string; remaining: number | null }) => [r.id, r.remaining]),
    ).toEqual([
      ['rule-1', null],
      ['rule-2', 3],
    ]);
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(429);
    const listed = await t.control.get('/_control/faults');
    expect(listed.body.rules[1]).toMatchObject({ calls: 1, fired: 1, remaining: 2 });

    const reset = await t.control.call('DELETE', '/_control/faults');
    expect(reset.body).toEqual({ active: false, rules: [] });
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(200);
  });

  it('refuses a bad rule with 400 VALIDATION_FAILED naming the field, and keeps the old rules', async () => {
    await t.control.call('PUT', '/_control/faults', {
      body: { rules: [{ kind: 'reset', times: 1 }] },
    });
    const bad = await t.control.call('PUT', '/_control/faults', {
      body: {
        rules: [
          { kind: 'latency', ms: 5 },
          { kind: 'server-error', status: 501 },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(bad.body.message).toEqual(['rules[1].status must be one of 500, 502, 503']);
    const kept = await t.control.get('/_control/faults');
    expect(kept.body.rules).toEqual([expect.objectContaining({ kind: 'reset', remaining: 1 })]);
    const notRules = await t.control.call('PUT', '/_control/faults', { body: [{ kind: 'reset' }] });
    expect(notRules.status).toBe(400);
    const badAdd = await t.control.post('/_control/faults', { kind: 'latency', ms: 'slow' });
    expect(badAdd.status).toBe(400);
    expect(badAdd.body.message).toEqual(['rule.ms must be integer']);
    await t.control.call('DELETE', '/_control/faults');
  });

  it('takes the control token, never a merchant key, and stays out of the OpenAPI document', async () => {
    const asMerchant = await t.merchants[0]?.get('/_control/faults');
    expect(asMerchant?.status).toBe(401);
    const document = t.sandbox.openApiDocument() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).some((path) => path.startsWith('/_control'))).toBe(false);
  });
});
