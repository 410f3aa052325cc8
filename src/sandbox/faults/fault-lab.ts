import type { OperationId } from '../../contract/index.js';
import { hashUnit } from '../random/seeded-random.js';
import { FaultConfigError } from './fault-config-error.js';
import { type FaultKind, type FaultRule, operationsFor } from './fault-rule.js';
import { parseFaultRule, parseFaultRules } from './parse-fault-rules.js';

/** The kinds that decide how a call ends; at most one of them fires per call. */
type EndingKind = 'rate-limit' | 'server-error' | 'reset' | 'truncate' | 'commit-then-drop';

/** A fault that ends a call: answered instead of it, or its answer lost on the way out. */
export type EndingFault = Extract<FaultRule, { kind: EndingKind }>;

const ENDING_KINDS: ReadonlySet<FaultKind> = new Set<EndingKind>([
  'rate-limit',
  'server-error',
  'reset',
  'truncate',
  'commit-then-drop',
]);

/** Rows to insert and to move on before a list call reads its page; `key` seeds their draws. */
export interface DriftPlan {
  readonly insert: number;
  readonly progress: number;
  readonly key: string;
}

/** What the lab does to one call; `undefined` from `decide` means nothing. */
export interface FaultDecision {
  /** Milliseconds to wait before the call is handled (0 for none). */
  readonly latencyMs: number;
  readonly ending: EndingFault | undefined;
  /** The largest page this call may serve, below the usual 100. */
  readonly pageSize: number | undefined;
  readonly drift: DriftPlan | undefined;
  /** The ids of the rules that fired, for the logs. */
  readonly fired: readonly string[];
}

/** A rule as the control surface lists it: with its id and what it has done so far. */
export type FaultRuleStatus = FaultRule & {
  readonly id: string;
  /** Matching calls that reached the rule's draw. */
  readonly calls: number;
  /** Calls it fired on. */
  readonly fired: number;
  /** How many more times it may fire (`times` rules), or null when unlimited. */
  readonly remaining: number | null;
};

interface ArmedRule {
  readonly rule: FaultRule & { readonly id: string };
  calls: number;
  fired: number;
}

/**
 * The fault lab: rules that make chosen calls fail the way a real upstream fails (429s, 5xx,
 * latency, resets, truncated bodies, lost order answers, small pages, drifting lists). Off while
 * it holds no rule. Every draw comes from the seed, the rule id and the rule's own call count, so
 * the same seed and the same calls give the same faults.
 * @example
 * const lab = new FaultLab('seed', [{ kind: 'server-error', status: 503, times: 2 }]);
 * lab.decide('listTransactions', 'mch_1')?.ending; // { kind: 'server-error', status: 503, ... }
 */
export class FaultLab {
  readonly #seed: string;
  #rules: ArmedRule[] = [];
  #serial = 0;

  /** @throws FaultConfigError when a rule is invalid. */
  constructor(seed: string, rules: readonly FaultRule[] = []) {
    this.#seed = seed;
    this.replace(rules);
  }

  /** True while the lab holds at least one rule, spent or not. */
  get active(): boolean {
    return this.#rules.length > 0;
  }

  /** The rules in the order they are applied, with their counters. */
  list(): FaultRuleStatus[] {
    return this.#rules.map(({ rule, calls, fired }) => ({
      ...rule,
      calls,
      fired,
      remaining: rule.times === undefined ? null : rule.times - fired,
    }));
  }

  /**
   * Replace every rule (counters start again).
   * @throws FaultConfigError naming the bad field; the lab is then unchanged.
   */
  replace(rules: readonly FaultRule[]): FaultRuleStatus[] {
    const checked = parseFaultRules(rules, 'rules');
    // Explicit ids are reserved first, so a generated `rule-N` never takes one of them.
    const taken = new Set(checked.flatMap((rule) => (rule.id === undefined ? [] : [rule.id])));
    let serial = 0;
    this.#rules = checked.map((rule) => {
      let id = rule.id;
      while (id === undefined || (rule.id === undefined && taken.has(id))) id = `rule-${++serial}`;
      taken.add(id);
      return { rule: { ...rule, id }, calls: 0, fired: 0 };
    });
    this.#serial = serial;
    return this.list();
  }

  /**
   * Add one rule after the others.
   * @throws FaultConfigError when it is invalid or its id is taken.
   */
  add(rule: FaultRule): FaultRuleStatus {
    const checked = parseFaultRule(rule, 'rule');
    const taken = new Set(this.#rules.map((armed) => armed.rule.id));
    if (checked.id !== undefined && taken.has(checked.id)) {
      throw new FaultConfigError('FAULT_RULE_INVALID', [
        `rule.id ${JSON.stringify(checked.id)} is already in use`,
      ]);
    }
    let id = checked.id;
    while (id === undefined || (checked.id === undefined && taken.has(id)))
      id = `rule-${++this.#serial}`;
    this.#rules.push({ rule: { ...checked, id }, calls: 0, fired: 0 });
    return this.list().at(-1) as FaultRuleStatus;
  }

  /** Remove every rule: the lab is off and the service behaves exactly as without it. */
  reset(): void {
    this.#rules = [];
    this.#serial = 0;
  }

  /**
   * What to do to one call of `operation` by `merchantId`. Rules are tried in order; each one
   * that matches counts the call and draws; latency adds up, the smallest page size wins, drift
   * adds up, and only the first ending fault applies (later ones neither count nor draw).
   * @param limit the rows a list call asks for (its `limit`, or the default); undefined for
   *   other calls and for a `limit` the service will refuse
   */
  decide(
    operation: OperationId,
    merchantId: string,
    limit?: number | undefined,
  ): FaultDecision | undefined {
    if (this.#rules.length === 0) return undefined;
    let latencyMs = 0;
    let ending: EndingFault | undefined;
    let pageSize: number | undefined;
    let drift: DriftPlan | undefined;
    const fired: string[] = [];
    for (const armed of this.#rules) {
      const { rule } = armed;
      const match = rule.match ?? {};
      if (match.operation !== undefined && match.operation !== '*' && match.operation !== operation)
        continue;
      if (match.merchantId !== undefined && match.merchantId !== merchantId) continue;
      if (match.minLimit !== undefined && (limit ?? 0) < match.minLimit) continue;
      if (!operationsFor(rule.kind).includes(operation)) continue;
      if (ending && ENDING_KINDS.has(rule.kind)) continue;
      if (rule.times !== undefined && armed.fired >= rule.times) continue;
      armed.calls += 1;
      const call = String(armed.calls);
      if (
        rule.probability !== undefined &&
        hashUnit(this.#seed, 'fault', rule.id, call) >= rule.probability
      )
        continue;
      armed.fired += 1;
      fired.push(rule.id);
      switch (rule.kind) {
        case 'latency': {
          const jitter = rule.jitterMs ?? 0;
          latencyMs +=
            rule.ms +
            Math.floor(hashUnit(this.#seed, 'fault-jitter', rule.id, call) * (jitter + 1));
          break;
        }
        case 'page-size':
          pageSize = Math.min(pageSize ?? rule.max, rule.max);
          break;
        case 'drift':
          drift = {
            insert: (drift?.insert ?? 0) + (rule.insert ?? 0),
            progress: (drift?.progress ?? 0) + (rule.progress ?? 0),
            key: `${drift ? `${drift.key}+` : ''}${rule.id}:${call}`,
          };
          break;
        default:
          ending = rule;
      }
    }
    return fired.length === 0 ? undefined : { latencyMs, ending, pageSize, drift, fired };
  }
}
