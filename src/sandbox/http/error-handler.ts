import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ReplayedRefusal } from '../orders/order-desk.js';
import { ApiError, errorBody } from './api-error.js';

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** One readable line per schema violation, naming the field (`amount must match ...`). */
export function describeValidation(errors: readonly AjvError[]): string[] {
  return errors.map((e) => {
    const path = (e.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    if (e.keyword === 'required') return `${String(e.params?.missingProperty)} is required`;
    if (e.keyword === 'additionalProperties')
      return `property ${String(e.params?.additionalProperty)} should not exist`;
    if (e.keyword === 'enum') {
      const allowed = (e.params?.allowedValues as unknown[] | undefined)?.join(', ');
      return `${path || 'value'} must be one of: ${allowed}`;
    }
    if (e.keyword === 'type' && path === '') return `body must be a JSON ${String(e.params?.type)}`;
    return `${path || 'value'} ${e.message ?? 'is invalid'}`;
  });
}

/** Turn every failure into an error body: never a 500 for bad input, never a stack trace. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(
    (
      error: FastifyError | ApiError | ReplayedRefusal,
      request: FastifyRequest,
      reply: FastifyReply,
    ) => {
      if (error instanceof ReplayedRefusal) {
        return reply.code(error.statusCode).header('idempotent-replayed', 'true').send(error.body);
      }
      if (error instanceof ApiError) return reply.code(error.statusCode).send(error.toBody());
      if ('validation' in error && error.validation) {
        return reply
          .code(400)
          .send(errorBody('VALIDATION_FAILED', describeValidation(error.validation as AjvError[])));
      }
      const status = 'statusCode' in error ? error.statusCode : undefined;
      if (status === 429)
        return reply
          .code(429)
          .send(errorBody('RATE_LIMITED', 'too many requests; retry after the Retry-After delay'));
      if (status === 413)
        return reply.code(413).send(errorBody('PAYLOAD_TOO_LARGE', 'request body exceeds 1 MiB'));
      if (status === 415) {
        return reply
          .code(415)
          .send(
            errorBody(
              'UNSUPPORTED_MEDIA_TYPE',
              'request bodies must be Content-Type: application/json',
            ),
          );
      }
      if (status !== undefined && status >= 400 && status < 500) {
        const message =
          error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
            ? 'body is not valid JSON'
            : error.message;
        return reply.code(400).send(errorBody('VALIDATION_FAILED', [message]));
      }
      request.log.error({ err: error }, 'unhandled error');
      return reply.code(500).send(errorBody('INTERNAL_ERROR', 'internal error'));
    },
  );

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return reply.code(404).send(errorBody('NOT_FOUND', `no operation ${request.method} ${path}`));
  });
}
