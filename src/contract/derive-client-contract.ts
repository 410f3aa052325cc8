import type { TSchema } from 'typebox';
import type { ClientContract, ClientOperation, ResponseShape } from './client-contract-shape.js';
import { Pagination } from './resources.js';
import { type OperationId, ROUTES } from './routes.js';

/**
 * The client contract that ROUTES gives: what `client-contract.ts` must hold. Plain JSON (a
 * round trip through JSON drops anything the schema library attached).
 */
export function deriveClientContract(): ClientContract {
  const records: Record<string, TSchema> = {};
  const operations = Object.fromEntries(
    Object.entries(ROUTES).map(([id, route]) => {
      const { shape, record } = shapeOf(route.response);
      const title = (record as { title?: string }).title;
      if (title === undefined) throw new Error(`${id}: its record schema has no title`);
      if (records[title] !== undefined && records[title] !== record)
        throw new Error(`${id}: two record schemas are titled ${title}`);
      records[title] = record;
      const operation: ClientOperation = {
        method: route.method,
        path: route.path,
        shape,
        record: title,
      };
      return [id, operation];
    }),
  ) as Record<OperationId, ClientOperation>;
  return JSON.parse(
    JSON.stringify({ pagination: Pagination, records, operations }),
  ) as ClientContract;
}

function shapeOf(response: TSchema): { shape: ResponseShape; record: TSchema } {
  const properties = (response as { properties?: Record<string, TSchema> }).properties ?? {};
  const data = properties.data as (TSchema & { type?: string; items?: TSchema }) | undefined;
  if (!data) throw new Error('a response schema without data');
  if (properties.pagination) return { shape: 'page', record: data.items as TSchema };
  if (data.type === 'array') return { shape: 'list', record: data.items as TSchema };
  return { shape: 'single', record: data };
}
