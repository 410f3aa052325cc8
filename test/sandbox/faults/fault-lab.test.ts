import { describe, expect, it } from 'vitest';
import type { OperationId } from '../../../src/contract/index.js';
import { FaultConfigError } from '../../../src/sandbox/faults/fault-config-error.js';
import { FaultLab } from '../../../src/sandbox/faults/fault-lab.js';
import type { FaultRule } from '../../../src/sandbox/faults/fault-rule.js';

function fires(lab: FaultLab, calls: number, operation: OperationId = 'getCard'): boolean[] {
  return Array.from({ length: calls }, () => lab.decide(operation, 'mch_a') !== undefined);
}

describe('FaultLab', () => {
  it('decides nothing while it holds no rule', () => {
    const lab = new FaultLab('seed');
    expect(lab.active).toBe(false);
    expect(lab.decide('listTransactions', 'mch_a')).toBeUndefined();
  });

  it('fires a times rule on the next N matching calls, then never again', () => {
    const lab = new FaultLab('seed', [{ kind: 'reset', times: 2 }]);
    expect(fires(lab, 4)).toEqual([true, true, false, false]);
    expect(lab.list()[0]).toMatchObject({ id: 'rule-1', calls: 2, fired: 2, remaining: 0 });
  });

  it('draws probabilities from the seed, the rule id and its call count alone', () => {
    const rules: FaultRule[] = [{ id: 'flaky', kind: 'truncate', probability: 0.3 }];
    const a = fires(new FaultLab('seed-1', rules), 200);
    expect(fires(new FaultLab('seed-1', rules), 200)).toEqual(a);
    expect(fires(new FaultLab('seed-2', rules), 200)).not.toEqual(a);
    const share = a.filter(Boolean).length / a.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.45);
    // Another rule in front (a non-ending kind) does not shift this rule's draws.
    const crowded = new FaultLab('seed-1', [{ kind: 'latency', ms: 0 }, ...rules]);
    const ending = Array.from(
      { length: 200 },
      () => crowded.decide('getCard', 'mch_a')?.ending !== undefined,
    );
    expect(ending).toEqual(a);
    expect(fires(new FaultLab('s', [{ kind: 'reset', probability: 0 }]), 50)).not.toContain(true);
    expect(fires(new FaultLab('s', [{ kind: 'reset', probability: 1 }]), 50)).not.toContain(false);
  });

  it('fires a rule with both times and probability at most N times, each by its draw', () => {
    const lab = new FaultLab('seed', [{ kind: 'reset', times: 2, probability: 0.5 }]);
    const seen = fires(lab, 50);
    expect(seen.filter(Boolean)).toHaveLength(2);
    expect(lab.list()[0]?.remaining).toBe(0);
  });

  it('adds jitter from the seed within [ms, ms + jitterMs]', () => {
    const delays = (seed: string) => {
      const lab = new FaultLab(seed, [{ kind: 'latency', ms: 100, jitterMs: 40 }]);
      return Array.from({ length: 50 }, () => lab.decide('getCard', 'mch_a')?.latencyMs ?? -1);
    };
    const first = delays('jitter');
    expect(delays('jitter')).toEqual(first);
    for (const ms of first) {
      expect(ms).toBeGreaterThanOrEqual(100);
      expect(ms).toBeLessThanOrEqual(140);
    }
    expect(new Set(first).size).toBeGreaterThan(1);
  });

  it('combines rules: latency and drift add up, the smallest page wins, one ending applies', () => {
    const lab = new FaultLab('seed', [
      { kind: 'latency', ms: 10 },
      { kind: 'latency', ms: 5 },
      { kind: 'page-size', max: 50 },
      { kind: 'page-size', max: 7 },
      { kind: 'drift', insert: 2 },
      { kind: 'drift', progress: 3 },
      { kind: 'server-error', status: 503 },
      { kind: 'rate-limit' },
    ]);
    const decision = lab.decide('listTransactions', 'mch_a');
    expect(decision).toMatchObject({
      latencyMs: 15,
      pageSize: 7,
      drift: { insert: 2, progress: 3 },
      ending: { kind: 'server-error', status: 503 },
    });
    expect(lab.list().map((r) => r.calls)).toEqual([1, 1, 1, 1, 1, 1, 1, 0]);
  });

  it('applies a kind only where it means something, even under operation *', () => {
    const lab = new FaultLab('seed', [
      { kind: 'page-size', max: 5, match: { operation: '*' } },
      { kind: 'drift', insert: 1 },
      { kind: 'commit-then-drop' },
    ]);
    expect(lab.decide('getMerchantBalance', 'mch_a')).toBeUndefined();
    expect(lab.decide('listCards', 'mch_a')).toMatchObject({ pageSize: 5, ending: undefined });
    expect(lab.decide('deposit', 'mch_a')).toMatchObject({
      pageSize: undefined,
      ending: { kind: 'commit-then-drop' },
    });
  });

  it('matches operation and merchant', () => {
    const lab = new FaultLab('seed', [
      { kind: 'reset', match: { operation: 'withdraw', merchantId: 'mch_b' } },
    ]);
    expect(lab.decide('withdraw', 'mch_a')).toBeUndefined();
    expect(lab.decide('deposit', 'mch_b')).toBeUndefined();
    expect(lab.decide('withdraw', 'mch_b')?.ending?.kind).toBe('reset');
  });

  it('matches list calls by the rows they ask for, and no other call, under minLimit', () => {
    const lab = new FaultLab('seed', [{ kind: 'reset', match: { operation: '*', minLimit: 2 } }]);
    expect(lab.decide('listTransactions', 'mch_a', 1)).toBeUndefined();
    expect(lab.decide('listTransactions', 'mch_a', undefined)).toBeUndefined();
    expect(lab.decide('getCard', 'mch_a')).toBeUndefined();
    expect(lab.decide('listTransactions', 'mch_a', 2)?.ending?.kind).toBe('reset');
    expect(lab.decide('listCards', 'mch_a', 100)?.ending?.kind).toBe('reset');
    // Calls it passed over are not counted: they neither draw nor spend the rule.
    expect(lab.list()[0]).toMatchObject({ calls: 2, fired: 2 });
  });

  it('keeps explicit ids out of the generated ones', () => {
    const lab = new FaultLab('seed', [{ kind: 'reset' }, { id: 'rule-1', kind: 'truncate' }]);
    expect(lab.list().map((r) => r.id)).toEqual(['rule-2', 'rule-1']);
    expect(lab.add({ kind: 'reset' }).id).toBe('rule-3');
  });

  it('refuses an invalid rule set whole and keeps the rules it had', () => {
    const lab = new FaultLab('seed', [{ id: 'kept', kind: 'reset' }]);
    const bad = [{ kind: 'latency', ms: -5 }] as unknown as FaultRule[];
    expect(() => lab.replace(bad)).toThrow(FaultConfigError);
    expect(() => lab.replace(bad)).toThrow('rules[0].ms must be >= 0');
    expect(lab.list().map((r) => r.id)).toEqual(['kept']);
    lab.reset();
    expect(lab.active).toBe(false);
  });
});
