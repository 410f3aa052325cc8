import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { commandExit } from '../../src/cli/command-errors.js';
import { ExitError } from '../../src/cli/exit-codes.js';
import type { MerchantSource } from '../../src/config/index.js';

const merchant = { name: 'default', keyOrigin: 'CARDSYNC_API_KEY' } as MerchantSource;
const rejected = (status: number, message: string) =>
  new UpstreamError('UPSTREAM_REJECTED', message, {
    operation: 'depositCard',
    status,
    attempts: 1,
  });

describe('the exit of a card, balance or orders command', () => {
  it('is 7 for a refusal, and 4 for a redirect, which refuses nothing (an order stays SUBMITTED)', () => {
    const refused = commandExit(rejected(422, 'rejected with 422'), 'deposit', merchant);
    expect(refused).toBeInstanceOf(ExitError);
    expect((refused as ExitError).exitCode).toBe(7);
    const moved = commandExit(
      rejected(303, 'redirected with 303 to /orders/1, which is not followed'),
      'deposit',
      merchant,
    );
    expect((moved as ExitError).exitCode).toBe(4);
    expect((moved as ExitError).message).toBe(
      'deposit: redirected with 303 to /orders/1, which is not followed',
    );
  });
});
