import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { isForgottenRefusal, refusalCode } from '../../src/journal/order-refusal.js';

const answered = (status: number, upstreamCode?: string) =>
  new UpstreamError(
    status === 401 ? 'UPSTREAM_UNAUTHORIZED' : 'UPSTREAM_REJECTED',
    `answered ${status}`,
    { operation: 'depositCard', status, attempts: 1, ...(upstreamCode ? { upstreamCode } : {}) },
  );

describe('what proves an order was refused', () => {
  it('a 401, or a 4xx with its code (HTTP_<status> without one)', () => {
    expect(refusalCode(answered(401))).toBe('UNAUTHORIZED');
    expect(refusalCode(answered(422, 'INSUFFICIENT_BALANCE'))).toBe('INSUFFICIENT_BALANCE');
    expect(refusalCode(answered(400))).toBe('HTTP_400');
  });

  it('not a redirect: a 303 after a POST is how a server says it took it, so the order stays SUBMITTED', () => {
    for (const status of [301, 302, 303, 307, 308])
      expect(refusalCode(answered(status))).toBe(undefined);
  });
});

describe('which refusals free the reference', () => {
  it('a 401 and a 400 validation failure, not a refusal the upstream remembers', () => {
    for (const code of ['UNAUTHORIZED', 'HTTP_400', 'VALIDATION_FAILED', 'HOLDER_REQUIRED'])
      expect(isForgottenRefusal(code), code).toBe(true);
    for (const code of ['INSUFFICIENT_BALANCE', 'CARD_NOT_FOUND', 'DUPLICATE_ORDER', 'HTTP_409'])
      expect(isForgottenRefusal(code), code).toBe(false);
  });

  it("a code the interface does not list (a real upstream's own 400, say): sent again, the upstream answers", () => {
    expect(isForgottenRefusal('AMOUNT_FORMAT')).toBe(true);
  });
});
