import { randomBytes } from 'node:crypto';
import { hashKey } from './http/authentication.js';
import type { SandboxContext } from './sandbox-context.js';

/** A new merchant API key: `sk_test_` and 32 random bytes in hex. */
export function newApiKey(): string {
  return `sk_test_${randomBytes(32).toString('hex')}`;
}

/** Issue a new live key for a merchant and return it. */
export function createKey(ctx: SandboxContext, merchantId: string): string {
  const key = newApiKey();
  ctx.store.merchants.insertKey(merchantId, hashKey(key), key, ctx.clock.now());
  return key;
}
