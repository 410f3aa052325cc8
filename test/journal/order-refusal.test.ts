import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { refusalCode } from '../../src/journal/order-refusal.js';

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
