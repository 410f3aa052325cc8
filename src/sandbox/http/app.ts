import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, fastify } from 'fastify';
import type { Logger } from 'pino';
import { VERSION } from '../../version.js';
import type { MovableClock, ServiceClock } from '../clock.js';
import { registerControlRoutes } from '../control/control-routes.js';
import { registerFaultControlRoutes } from '../control/fault-control-routes.js';
import type { DueEvents } from '../due-events.js';
import type { FaultLab } from '../faults/fault-lab.js';
import { faultPageSize, installFaults } from '../faults/install-faults.js';
import type { SandboxContext } from '../sandbox-context.js';
import { ApiError, errorBody } from './api-error.js';
import { installAuthentication } from './authentication.js';
import { clientErrorHandler } from './client-error-handler.js';
import { installErrorHandling } from './error-handler.js';
import { MAX_PAGE_SIZE } from './presenters.js';
import { registerCardRoutes } from './routes/card-routes.js';
import { registerMerchantRoutes } from './routes/merchant-routes.js';
import { registerOrderRoutes } from './routes/order-routes.js';
import { registerTransactionRoutes } from './routes/transaction-routes.js';

/** Requests per second allowed per API key. */
export interface RateLimitOptions {
  readonly perSecond: number;
}

/** What the HTTP application is built from. */
export interface AppOptions {
  readonly ctx: SandboxContext;
  readonly clock: MovableClock;
  readonly events: DueEvents;
  readonly logger: Logger;
  readonly tls: { readonly key: string; readonly cert: string };
  /** The control surface's token; the surface is off when undefined. */
  readonly controlToken: string | undefined;
  readonly rateLimit: RateLimitOptions | undefined;
  /** The fault lab; with no rule in it the service behaves exactly as without it. */
  readonly faults: FaultLab;
  /** Aborted when the service starts closing: a call waiting out injected latency is dropped. */
  readonly closing: AbortSignal;
}

/** Validation reports every field error and never strips unknown properties (they are refused). */
const AJV_OPTIONS = {
  removeAdditional: false,
  allErrors: true,
  useDefaults: true,
  strict: false,
} as const;

/** The query fields that are whole numbers, and how they must be written. */
const PAGING_FIELDS = ['page', 'limit'] as const;
const DECIMAL_DIGITS = /^[0-9]+$/;

/** Largest request body accepted (bigger is a 413). */
export const BODY_LIMIT = 1024 * 1024;

/** The headers every answer carries (reference-model section 1, docs/sandbox.md). */
function stampHeaders(reply: FastifyReply, clock: ServiceClock): void {
  reply.header('x-sandbox-version', VERSION);
  // The service clock, not the wall clock, so a client can learn the upstream's time even after
  // the control surface has moved it forward.
  reply.header('date', new Date(clock.now()).toUTCString());
  // How long the service itself took, for clients and benchmarks to tell it from the network.
  reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(3)}`);
}

/** A header name: an RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Build the service's HTTPS application (not yet listening). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { ctx, events } = options;
  const app = fastify({
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own; the hook below
    // refuses it with the error envelope instead.
    https: { key: options.tls.key, cert: options.tls.cert, requireHostHeader: false },
    // Request lines only at debug: a sync pulls thousands of pages a second.
    loggerInstance: options.logger.child(
      { module: 'sandbox-http' },
      { level: options.logger.isLevelEnabled('debug') ? options.logger.level : 'warn' },
    ),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    clientErrorHandler: clientErrorHandler(ctx.clock),
    // A path Fastify cannot decode (`/cards/%zz`) is answered here, before any hook: the headers
    // every answer carries are set by hand, or this one would be the only answer without them.
    frameworkErrors: (error, _request, reply) => {
      stampHeaders(reply as FastifyReply, ctx.clock);
      (reply as FastifyReply).code(400).send(errorBody('VALIDATION_FAILED', [error.message]));
    },
  }) as unknown as FastifyInstance;
  // Query strings arrive as text and are coerced to their schema's types (`limit=20`); bodies
  // are JSON and are not: `"amount": 10.1` must be refused, never turned into "10.1".
  const queryAjv = new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' });
  const bodyAjv = new Ajv({ ...AJV_OPTIONS, coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema),
  );
  // That coercion reads text with JavaScript's number rules, so `0x10`, `1e1`, ` 1` and
  // `Infinity` would pass as numbers: a page or limit must be written in decimal digits.
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    const errors = PAGING_FIELDS.filter(
      (name) => typeof query?.[name] === 'string' && !DECIMAL_DIGITS.test(query[name]),
    ).map((name) => `${name} must be a whole number written in decimal digits`);
    if (errors.length > 0) throw new ApiError('VALIDATION_FAILED', errors);
  });
  // Bodies are JSON only (the interface): Fastify's built-in text/plain parser would hand a
  // string to validation and answer 400 where the media type itself is the fault (415).
  app.removeContentTypeParser('text/plain');

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Merchant card issuing service',
        version: VERSION,
        description:
          'The card-issuing interface as the cardsync sandbox implements it; behaviour the interface leaves unstated follows the reference model.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
      security: [{ apiKey: [] }],
    },
  });

  installErrorHandling(app);
  // RFC 9112 3.2: a server must answer 400 to an HTTP/1.1 request without Host. Before
  // authentication: the request is malformed whoever sends it.
  app.addHook('onRequest', async (request, reply) => {
    const { httpVersionMajor, httpVersionMinor, rawHeaders } = request.raw;
    if (httpVersionMajor === 1 && httpVersionMinor >= 1 && request.headers.host === undefined)
      throw new ApiError('VALIDATION_FAILED', ['an HTTP/1.1 request needs a Host header']);
    // RFC 9112 5.1: a header name is a token, and whitespace before its colon is refused with
    // 400. Node's parser does so from 20.20; 20.19's took `x-api-key : KEY` as a header named
    // `x-api-key ` and the request went on without a key. Answered as the parser's refusals are,
    // closing the connection: a parser so lenient may not know where the next request starts.
    for (let i = 0; i < rawHeaders.length; i += 2) {
      if (!HEADER_NAME.test(rawHeaders[i] ?? '')) {
        reply.header('connection', 'close');
        throw new ApiError('VALIDATION_FAILED', ['malformed HTTP request']);
      }
    }
  });
  installAuthentication(app, ctx.store, options.controlToken);
  app.addHook('onRequest', async () => {
    events.runDue();
  });
  // An accepted order has a new due time: keep the timer on it so it is processed unasked.
  app.addHook('onResponse', async (request) => {
    if (request.method === 'POST') events.arm();
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    stampHeaders(reply, ctx.clock);
    return payload;
  });
  // After authentication (faults are per merchant) and the version header (a truncated answer
  // carries it too).
  installFaults(app, {
    lab: options.faults,
    ctx,
    events,
    logger: options.logger,
    closing: options.closing,
  });
  if (options.rateLimit) {
    await app.register(rateLimit, {
      max: options.rateLimit.perSecond,
      timeWindow: 1000,
      keyGenerator: (request) => {
        const key = request.headers['x-api-key'];
        return typeof key === 'string' ? `key:${key}` : `ip:${request.ip}`;
      },
      allowList: (request) =>
        request.url.startsWith('/_control') || request.url === '/openapi.json',
    });
  }

  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  const maxPageSize = (request: FastifyRequest) => faultPageSize(request, MAX_PAGE_SIZE);
  registerCardRoutes(app, ctx, maxPageSize);
  registerOrderRoutes(app, ctx);
  registerTransactionRoutes(app, ctx, maxPageSize);
  registerMerchantRoutes(app, ctx);
  if (options.controlToken) {
    registerControlRoutes(app, ctx, options.clock, events);
    registerFaultControlRoutes(app, options.faults);
  }
  await app.ready();
  return app;
}
