import { type Static, type TSchema, Type } from 'typebox';
import { Pagination } from './resources.js';

/** `{ data }`: a single record or an unpaginated list. */
export function DataEnvelope<T extends TSchema>(data: T) {
  return Type.Object({ data });
}

/** `{ data: [...], pagination }`: a page of a list. */
export function PageEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), pagination: Pagination });
}

/** The exact 401 body the interface states. */
export const UnauthorizedBody = Type.Object(
  { statusCode: Type.Literal(401), message: Type.Literal('Unauthorized') },
  { title: 'Unauthorized', additionalProperties: false },
);
export type UnauthorizedBody = Static<typeof UnauthorizedBody>;

/** Every other error: the 401's shape plus the HTTP reason and a machine-readable code. */
export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
    error: Type.String({ description: 'The HTTP reason phrase' }),
    code: Type.String({ description: 'Machine-readable error code' }),
    message: Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'What went wrong; an array of field errors for VALIDATION_FAILED',
    }),
  },
  { title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;
