import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import { type FastifyInstance, type FastifyReply, fastify } from 'fastify';
import type { Logger } from 'pino';
import { VERSION } from '../../version.js';
import type { MovableClock } from '../clock.js';
import { registerControlRoutes } from '../control/control-routes.js';
import type { DueEvents } from '../due-events.js';
import type { SandboxContext } from '../sandbox-context.js';
import { errorBody } from './api-error.js';
import { installAuthentication } from './authentication.js';
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
}

/** Largest request body accepted (bigger is a 413). */
export const BODY_LIMIT = 1024 * 1024;

/** Build the service's HTTPS application (not yet listening). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { ctx, events } = options;
  const app = fastify({
    https: { key: options.tls.key, cert: options.tls.cert },
    // Request lines only at debug: a sync pulls thousands of pages a second.
    loggerInstance: options.logger.child(
      { module: 'sandbox-http' },
      { level: options.logger.isLevelEnabled('debug') ? options.logger.level : 'warn' },
    ),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    ajv: {
      customOptions: {
        removeAdditional: false,
        allErrors: true,
        coerceTypes: 'array',
        useDefaults: true,
      },
    },
    frameworkErrors: (error, _request, reply) => {
      (reply as FastifyReply).code(400).send(errorBody('VALIDATION_FAILED', [error.message]));
    },
  }) as unknown as FastifyInstance;

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
  installAuthentication(app, ctx.store, options.controlToken);
  app.addHook('onRequest', async () => {
    events.runDue();
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-sandbox-version', VERSION);
    return payload;
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
  const maxPageSize = () => MAX_PAGE_SIZE;
  registerCardRoutes(app, ctx, maxPageSize);
  registerOrderRoutes(app, ctx);
  registerTransactionRoutes(app, ctx, maxPageSize);
  registerMerchantRoutes(app, ctx);
  if (options.controlToken) registerControlRoutes(app, ctx, options.clock, events);
  await app.ready();
  return app;
}
