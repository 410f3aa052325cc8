import { STATUS_CODES } from 'node:http';
import { type TSchema, Type } from 'typebox';
import {
  ERROR_STATUS,
  ErrorBody,
  type ErrorCode,
  type RouteContract,
  UnauthorizedBody,
} from '../../contract/index.js';

/**
 * The query of an operation that takes none: no parameter at all, so a stray one is a 400
 * rather than silently ignored (docs/sandbox.md, "Validation").
 */
const NO_QUERY = Type.Object({}, { additionalProperties: false });

/** Errors every operation can answer with. */
const COMMON_ERRORS: readonly ErrorCode[] = ['RATE_LIMITED', 'HTTPS_REQUIRED', 'INTERNAL_ERROR'];

/**
 * The Fastify schema parts of an operation but its body: its OpenAPI description, its query
 * (none allowed unless the contract names some) and one response schema per status it can
 * answer with (401 with the interface's exact body).
 */
export function describeOperation(route: RouteContract): {
  operationId: string;
  summary: string;
  tags: string[];
  security: Record<string, string[]>[];
  querystring: TSchema;
  response: Record<string, TSchema>;
} {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...route.errors, ...COMMON_ERRORS]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const response: Record<string, TSchema> = {
    [route.successStatus]: {
      ...route.response,
      description: STATUS_CODES[route.successStatus],
    } as TSchema,
    401: { ...UnauthorizedBody, description: 'Missing or unknown x-api-key' } as TSchema,
  };
  for (const [status, codes] of byStatus) {
    response[status] = {
      ...ErrorBody,
      properties: { ...ErrorBody.properties, code: { type: 'string', enum: codes } },
      description: `${STATUS_CODES[status]}: ${codes.join(', ')}`,
    } as TSchema;
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    security: [{ apiKey: [] }],
    querystring: route.querystring ?? NO_QUERY,
    response,
  };
}
