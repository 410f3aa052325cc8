import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { type ErrorCode, type OperationId, ROUTES } from '../../contract/index.js';
import type { DueEvents } from '../due-events.js';
import { errorBody } from '../http/api-error.js';
import { DEFAULT_PAGE_SIZE } from '../http/presenters.js';
import type { SandboxContext } from '../sandbox-context.js';
import { applyDrift } from './apply-drift.js';
import { dropConnection, resetConnection, sendTruncated } from './connection-faults.js';
import type { FaultDecision, FaultLab } from './fault-lab.js';
import { LIST_OPERATIONS, OPERATION_IDS } from './fault-rule.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the fault lab does to this call; null when nothing. */
    faults: FaultDecision | null;
  }
}

/** What the fault hooks work with. */
export interface FaultHookOptions {
  readonly lab: FaultLab;
  readonly ctx: SandboxContext;
  readonly events: DueEvents;
  readonly logger: Logger;
  /** Aborted when the service starts closing: a call still waiting out latency then ends. */
  readonly closing: AbortSignal;
}

const SERVER_ERROR_CODE: Readonly<Record<500 | 502 | 503, ErrorCode>> = {
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

const OPERATION_BY_ROUTE = new Map<string, OperationId>(
  OPERATION_IDS.map((id) => [`${ROUTES[id].method} ${ROUTES[id].path}`, id]),
);

/** The interface operation a request was routed to, if any (control routes have none). */
function operationOf(request: FastifyRequest): OperationId | undefined {
  return OPERATION_BY_ROUTE.get(`${request.method} ${request.routeOptions.url}`);
}

/**
 * Apply the fault lab's decisions to the service's calls, after authentication (a fault is
 * chosen per merchant) and before anything else: latency, then a 429 / 5xx / reset instead of
 * the handler; drift just before the handler reads its page; a truncated body or a dropped
 * connection once the answer is ready. With no rule in the lab, every hook returns at once and
 * the request path is exactly the usual one.
 */
export function installFaults(app: FastifyInstance, options: FaultHookOptions): void {
  const { lab, ctx, events, closing } = options;
  const logger = options.logger.child({ module: 'faults' });
  app.decorateRequest('faults', null);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!lab.active || request.merchantId === null) return;
    const operation = operationOf(request);
    if (operation === undefined) return;
    const decision = lab.decide(operation, request.merchantId, askedLimit(operation, request));
    if (decision === undefined) return;
    request.faults = decision;
    logger.debug({ operation, merchantId: request.merchantId, rules: decision.fired }, 'fault');
    if (decision.latencyMs > 0) {
      // Not holding the process open once the service is closed; no listener on `closing`
      // either, which cost the sandbox's CPU on every delayed call.
      await delay(decision.latencyMs, undefined, { ref: false });
      // The service closed while this call waited: its connection is gone and its store is
      // closed, so the call ends here instead of running on a closed database.
      if (closing.aborted) return reply.hijack();
    }
    const ending = decision.ending;
    if (ending?.kind === 'rate-limit') {
      const seconds = ending.retryAfterSeconds ?? 1;
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send(errorBody('RATE_LIMITED', `too many requests; retry after ${seconds} s`));
    }
    if (ending?.kind === 'server-error') {
      const code = SERVER_ERROR_CODE[ending.status];
      return reply.code(ending.status).send(errorBody(code, 'injected fault: the service failed'));
    }
    if (ending?.kind === 'reset') {
      resetConnection(request.raw.socket);
      // Nothing is sent: the lifecycle stops here and the handler never runs.
      return reply.hijack();
    }
  });

  app.addHook('preHandler', async (request: FastifyRequest) => {
    const drift = request.faults?.drift;
    const operation = operationOf(request);
    if (!drift || request.merchantId === null || operation === undefined) return;
    const result = applyDrift(ctx, operation, request.merchantId, request.query, drift);
    // Cards issued by drift have orders to process; keep the timer on them.
    events.arm();
    logger.debug({ operation, merchantId: request.merchantId, ...result }, 'drift applied');
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const kind = request.faults?.ending?.kind;
    if (kind === 'commit-then-drop') dropConnection(request.raw.socket);
    else if (kind === 'truncate' && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      await sendTruncated(request.raw.socket, reply.statusCode, reply.getHeaders(), payload);
    }
    // The socket is gone by now, so the HTTP layer's own write of `payload` goes nowhere.
    return payload;
  });
}

/**
 * The rows a list call asks for: its `limit`, or the service's default when absent; undefined
 * for other calls and for a `limit` the service refuses (not decimal digits, or too long to be a
 * number). Any count of digits, as the service reads them: `0000000050` asks for 50 rows, and
 * `1000000000` for a largest page; a bound on the digits let such calls pass every minLimit rule.
 */
function askedLimit(operation: OperationId, request: FastifyRequest): number | undefined {
  if (!LIST_OPERATIONS.includes(operation)) return undefined;
  const raw = (request.query as Record<string, unknown> | undefined)?.limit;
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  if (typeof raw !== 'string' || !/^[0-9]+$/.test(raw)) return undefined;
  const limit = Number(raw);
  return Number.isFinite(limit) ? limit : undefined;
}

/** The largest page a list call may serve: the service's maximum, or less under a fault. */
export function faultPageSize(request: FastifyRequest, maximum: number): number {
  return Math.min(maximum, request.faults?.pageSize ?? maximum);
}
