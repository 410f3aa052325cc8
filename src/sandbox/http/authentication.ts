import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxStore } from '../store/sandbox-store.js';

/** Which credential a route takes: a merchant key, the control token, or none. */
export type RouteAuth = 'merchant' | 'control' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    merchantId: string | null;
  }
}

/** The hash under which a key is looked up; keys themselves are never compared or logged. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The exact 401 of the interface. */
function unauthorized(reply: FastifyReply): FastifyReply {
  return reply.code(401).send({ statusCode: 401, message: 'Unauthorized' });
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Authenticate every request before routing: `x-api-key` names the merchant; control routes
 * take `x-control-token` instead (a merchant key never opens them). Unknown routes need a key
 * too, so an anonymous caller learns nothing about what exists.
 */
export function installAuthentication(
  app: FastifyInstance,
  store: SandboxStore,
  controlToken: string | undefined,
): void {
  app.decorateRequest('merchantId', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = request.routeOptions.config.auth ?? 'merchant';
    if (auth === 'none') return;
    if (auth === 'control') {
      const token = request.headers['x-control-token'];
      if (!controlToken || typeof token !== 'string' || !sameToken(token, controlToken))
        return unauthorized(reply);
      return;
    }
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string' || key.length === 0) return unauthorized(reply);
    const merchantId = store.merchants.merchantForKey(hashKey(key));
    if (!merchantId) return unauthorized(reply);
    request.merchantId = merchantId;
  });
}

/**
 * The authenticated merchant of a request, read afresh: requests interleave between
 * authentication and handling, so a balance read at authentication could be stale.
 */
export function merchantOf(request: FastifyRequest, store: SandboxStore) {
  const merchant = request.merchantId ? store.merchants.get(request.merchantId) : undefined;
  if (!merchant) throw new Error('route reached without an authenticated merchant');
  return merchant;
}
