import { Value } from 'typebox/value';
import { FaultConfigError } from './fault-config-error.js';
import {
  FAULT_KINDS,
  FAULT_SCHEMAS,
  type FaultKind,
  type FaultRule,
  LIST_OPERATIONS,
  operationsFor,
} from './fault-rule.js';

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message: string;
}

function isKind(value: unknown): value is FaultKind {
  return typeof value === 'string' && (FAULT_KINDS as readonly string[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema error as a line naming the field: `rules[0].status must be one of 500, 502, 503`. */
function describeError(field: string, kind: FaultKind, error: SchemaError): string | undefined {
  const at = `${field}${error.instancePath.replaceAll('/', '.')}`;
  switch (error.keyword) {
    case 'required':
      return (error.params.requiredProperties as string[])
        .map((name) => `${at}.${name} is required for a ${kind} rule`)
        .join('; ');
    case 'additionalProperties':
      return (error.params.additionalProperties as string[])
        .map((name) => `${at}.${name} is not a field of ${at === field ? `a ${kind} rule` : at}`)
        .join('; ');
    // additionalProperties: false also reports each extra field as "schema is false".
    case 'boolean':
      return undefined;
    case 'enum':
      return `${at} must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${at} must be 1-64 letters, digits, '.', '_' or '-'`;
    default:
      return `${at} ${error.message}`;
  }
}

function ruleProblems(value: unknown, field: string): string[] {
  if (!isRecord(value)) return [`${field} must be an object`];
  if (value.kind === undefined)
    return [`${field}.kind is required (one of ${FAULT_KINDS.join(', ')})`];
  if (!isKind(value.kind)) return [`${field}.kind must be one of ${FAULT_KINDS.join(', ')}`];
  const kind = value.kind;
  const problems = [...Value.Errors(FAULT_SCHEMAS[kind], value)]
    .map((error) => describeError(field, kind, error as SchemaError))
    .filter((line): line is string => line !== undefined);
  if (problems.length > 0) return problems;
  const operation = isRecord(value.match) ? value.match.operation : undefined;
  const allowed = operationsFor(kind);
  if (typeof operation === 'string' && operation !== '*' && !allowed.includes(operation as never)) {
    problems.push(
      `${field}.match.operation must be one of ${allowed.join(', ')} or * for a ${kind} rule`,
    );
  }
  const listed =
    typeof operation !== 'string' ||
    operation === '*' ||
    LIST_OPERATIONS.includes(operation as never);
  if (isRecord(value.match) && value.match.minLimit !== undefined) {
    const lists = LIST_OPERATIONS.join(' and ');
    if (!listed)
      problems.push(`${field}.match.minLimit applies to ${lists} only, not ${operation}`);
    // A kind that never acts on a list call (commit-then-drop) would never fire: refused like
    // an operation it cannot act on.
    else if (!allowed.some((id) => LIST_OPERATIONS.includes(id)))
      problems.push(
        `${field}.match.minLimit applies to ${lists} only, which a ${kind} rule never matches`,
      );
  }
  if (kind === 'drift' && !value.insert && !value.progress) {
    problems.push(`${field}.insert or ${field}.progress must be above 0 for a drift rule`);
  }
  return problems;
}

/**
 * Check one fault rule from untrusted JSON.
 * @param field where the rule sits, for the messages (`rules[2]`, or `rule` for a single one)
 * @throws FaultConfigError FAULT_RULE_INVALID with one line per problem, each naming its field.
 */
export function parseFaultRule(value: unknown, field: string): FaultRule {
  const problems = ruleProblems(value, field);
  if (problems.length > 0) throw new FaultConfigError('FAULT_RULE_INVALID', problems);
  return value as FaultRule;
}

/**
 * Check a list of fault rules from untrusted JSON; ids, where given, must be unique.
 * @example parseFaultRules(json.rules, 'rules')
 * @throws FaultConfigError FAULT_RULE_INVALID naming every bad field (`rules[1].status ...`).
 */
export function parseFaultRules(value: unknown, field: string): FaultRule[] {
  if (!Array.isArray(value)) {
    throw new FaultConfigError('FAULT_RULE_INVALID', [`${field} must be an array of rules`]);
  }
  const problems = value.flatMap((rule, i) => ruleProblems(rule, `${field}[${i}]`));
  const seen = new Set<unknown>();
  value.forEach((rule, i) => {
    const id = isRecord(rule) ? rule.id : undefined;
    if (id === undefined) return;
    if (seen.has(id)) problems.push(`${field}[${i}].id ${JSON.stringify(id)} is used twice`);
    seen.add(id);
  });
  if (problems.length > 0) throw new FaultConfigError('FAULT_RULE_INVALID', problems);
  return value as FaultRule[];
}
