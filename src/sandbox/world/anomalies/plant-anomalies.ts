import { SeededRandom } from '../../random/seeded-random.js';
import type { SandboxContext } from '../../sandbox-context.js';
import { CHECK_CODES, type GroundTruth, type PlantedFinding } from '../ground-truth.js';
import type { PlantingKit } from './fresh-card.js';
import { NOT_PLANTED, PLANTERS } from './planters.js';

/** Where and how much to plant. */
export interface PlantingRequest extends Omit<PlantingKit, 'ctx'> {
  /** Instances of each code. */
  readonly perCode: number;
}

/**
 * Plant `perCode` findings of every code the upstream side can cause, spread over the
 * merchants, and return the ground-truth manifest.
 */
export function plantAnomalies(ctx: SandboxContext, request: PlantingRequest): GroundTruth {
  const random = new SeededRandom(ctx.seed, 'anomalies');
  const merchants = ctx.store.merchants.list();
  const kit: PlantingKit = { ...request, ctx };
  const findings: PlantedFinding[] = [];
  let turn = 0;
  ctx.store.atomically(() => {
    for (const code of CHECK_CODES) {
      const planter = PLANTERS[code];
      if (!planter) continue;
      for (let i = 0; i < request.perCode; i++) {
        const merchant = merchants[turn++ % merchants.length];
        if (!merchant) continue;
        const offerings = ctx.store.offerings.list(merchant.merchantId);
        const plain = offerings.filter((o) => !o.requiresHolder);
        const offering = plain.find((o) => o.issuanceFeeMinor > 0) ?? plain[0] ?? offerings[0];
        if (!offering) continue;
        findings.push(...planter({ kit, merchant, offering, offerings, random }));
      }
    }
  });
  return {
    seed: ctx.seed,
    generatedAt: new Date(request.now).toISOString(),
    findings,
    notPlanted: NOT_PLANTED,
  };
}
