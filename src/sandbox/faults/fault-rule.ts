import { type Static, Type } from 'typebox';
import { type OperationId, ROUTES } from '../../contract/index.js';

const strict = { additionalProperties: false } as const;

/** Every operation id of the interface, in the contract's order. */
export const OPERATION_IDS = Object.keys(ROUTES) as OperationId[];

/** The six order operations (every POST): the only calls that can commit and then drop. */
export const ORDER_OPERATIONS: readonly OperationId[] = OPERATION_IDS.filter(
  (id) => ROUTES[id].method === 'POST',
);

/** The paginated operations: the only calls with a page size to shrink and rows to drift. */
export const LIST_OPERATIONS: readonly OperationId[] = ['listCards', 'listTransactions'];

/** Which calls a rule applies to; an absent field matches every value. */
export const FaultMatch = Type.Object(
  {
    /** An operation id of the interface (`listTransactions`), or `*` for all. */
    operation: Type.Optional(Type.Enum([...OPERATION_IDS, '*'])),
    merchantId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    /**
     * List calls (`listCards`, `listTransactions`) whose `limit` asks for at least this many
     * rows (20 when absent): `2` leaves out the `limit=1` requests that only read a total.
     */
    minLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  strict,
);
export type FaultMatch = Static<typeof FaultMatch>;

const selection = {
  id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' })),
  match: Type.Optional(FaultMatch),
  /** Fire on the next N matching calls only, then the rule is spent. */
  times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  /** Fire on this share of matching calls, drawn from the seed, the rule id and its call count. */
  probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
};

const kindOnly = <K extends string>(kind: K) =>
  Type.Object({ ...selection, kind: Type.Literal(kind) }, strict);

/** One schema per fault kind; a rule is checked against the schema its `kind` names. */
export const FAULT_SCHEMAS = {
  'rate-limit': Type.Object(
    {
      ...selection,
      kind: Type.Literal('rate-limit'),
      retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
    },
    strict,
  ),
  'server-error': Type.Object(
    { ...selection, kind: Type.Literal('server-error'), status: Type.Enum([500, 502, 503]) },
    strict,
  ),
  latency: Type.Object(
    {
      ...selection,
      kind: Type.Literal('latency'),
      ms: Type.Integer({ minimum: 0, maximum: 60_000 }),
      jitterMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
    },
    strict,
  ),
  reset: kindOnly('reset'),
  truncate: kindOnly('truncate'),
  'commit-then-drop': kindOnly('commit-then-drop'),
  'page-size': Type.Object(
    {
      ...selection,
      kind: Type.Literal('page-size'),
      max: Type.Integer({ minimum: 1, maximum: 99 }),
    },
    strict,
  ),
  drift: Type.Object(
    {
      ...selection,
      kind: Type.Literal('drift'),
      /** Rows inserted into the listed range before the page is read. */
      insert: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
      /** Pending rows of the merchant moved on before the page is read. */
      progress: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    },
    strict,
  ),
} as const;

/**
 * A fault lab rule (docs/sandbox.md, "Fault lab"): which calls it matches, what it does to them,
 * and how often.
 * @example { kind: 'rate-limit', retryAfterSeconds: 2, match: { operation: 'listTransactions' }, times: 3 }
 */
export const FaultRule = Type.Union([
  FAULT_SCHEMAS['rate-limit'],
  FAULT_SCHEMAS['server-error'],
  FAULT_SCHEMAS.latency,
  FAULT_SCHEMAS.reset,
  FAULT_SCHEMAS.truncate,
  FAULT_SCHEMAS['commit-then-drop'],
  FAULT_SCHEMAS['page-size'],
  FAULT_SCHEMAS.drift,
]);
export type FaultRule = Static<typeof FaultRule>;

/** What a rule does: `rate-limit`, `server-error`, `latency`, `reset`, ... */
export type FaultKind = FaultRule['kind'];

/** Every fault kind, in documentation order. */
export const FAULT_KINDS = Object.keys(FAULT_SCHEMAS) as FaultKind[];

/** The operations a fault of `kind` can apply to. */
export function operationsFor(kind: FaultKind): readonly OperationId[] {
  if (kind === 'commit-then-drop') return ORDER_OPERATIONS;
  if (kind === 'page-size' || kind === 'drift') return LIST_OPERATIONS;
  return OPERATION_IDS;
}
