import { createKey } from '../merchant-keys.js';
import { SeededRandom } from '../random/seeded-random.js';
import type { SandboxContext } from '../sandbox-context.js';
import type { MerchantRecord, OfferingRecord } from '../store/records.js';
import { scaledMinor } from './currency-scale.js';

/** What a fresh sandbox starts with. */
export interface InitialWorldOptions {
  /** How many merchant accounts. */
  readonly merchants: number;
  /** Their currencies, assigned in turn (merchant i gets `currencies[i % length]`). */
  readonly currencies: readonly string[];
}

/** A merchant as `cardsync sandbox` announces it. */
export interface MerchantAccess {
  readonly merchantId: string;
  readonly apiKey: string;
  readonly currency: string;
}

interface OfferingTemplate {
  readonly name: string;
  readonly network: string;
  readonly type: string;
  /** In major units of a USD-like currency; scaled for others. */
  readonly minLoad: number;
  readonly maxLoad: number;
  readonly issuanceFeeCents: number;
  readonly depositFeePercents: readonly string[];
  readonly requiresHolder: boolean;
}

const OFFERING_TEMPLATES: readonly OfferingTemplate[] = [
  {
    name: 'Everyday Virtual',
    network: 'VISA',
    type: 'VIRTUAL',
    minLoad: 10,
    maxLoad: 5_000,
    issuanceFeeCents: 100,
    depositFeePercents: ['1.5', '1.25', '2'],
    requiresHolder: false,
  },
  {
    name: 'Travel Plus',
    network: 'MASTERCARD',
    type: 'VIRTUAL',
    minLoad: 50,
    maxLoad: 10_000,
    issuanceFeeCents: 250,
    depositFeePercents: ['2.5', '3', '2.75'],
    requiresHolder: false,
  },
  {
    name: 'Corporate Physical',
    network: 'VISA',
    type: 'PHYSICAL',
    minLoad: 100,
    maxLoad: 50_000,
    issuanceFeeCents: 500,
    depositFeePercents: ['0.75', '0.5', '1'],
    requiresHolder: true,
  },
  {
    name: 'Starter (no fees)',
    network: 'MASTERCARD',
    type: 'VIRTUAL',
    minLoad: 1,
    maxLoad: 500,
    issuanceFeeCents: 0,
    depositFeePercents: ['0'],
    requiresHolder: false,
  },
];

const MERCHANT_NAMES = [
  'Northwind Travel',
  'Acme Payroll',
  'Globex Marketing',
  'Initech Procurement',
  'Umbrella Logistics',
  'Hooli Ads',
];

/** Create merchants with keys, offerings and non-zero opening balances, deterministic from the seed. */
export function createInitialWorld(
  ctx: SandboxContext,
  options: InitialWorldOptions,
): MerchantAccess[] {
  const random = new SeededRandom(ctx.seed, 'initial-world');
  const now = ctx.clock.now();
  return ctx.store.atomically(() =>
    Array.from({ length: options.merchants }, (_, i) => {
      const currency = options.currencies[i % options.currencies.length] ?? 'USD';
      const merchant: MerchantRecord = {
        merchantId: ctx.ids.next('mch'),
        name: MERCHANT_NAMES[i % MERCHANT_NAMES.length] ?? `Merchant ${i + 1}`,
        currency,
        balanceMinor: scaledMinor(random.int(250_000, 1_000_000) * 100, currency),
        createdAt: now,
      };
      ctx.store.merchants.insert(merchant);
      OFFERING_TEMPLATES.forEach((template, position) => {
        const offering: OfferingRecord = {
          id: ctx.ids.next('off'),
          merchantId: merchant.merchantId,
          position,
          name: template.name,
          network: template.network,
          type: template.type,
          currency,
          minLoadMinor: scaledMinor(template.minLoad * 100, currency),
          maxLoadMinor: scaledMinor(template.maxLoad * 100, currency),
          issuanceFeeMinor: scaledMinor(template.issuanceFeeCents, currency),
          depositFeePercent: random.pick(template.depositFeePercents),
          requiresHolder: template.requiresHolder,
        };
        ctx.store.offerings.insert(offering);
      });
      return {
        merchantId: merchant.merchantId,
        apiKey: createKey(ctx, merchant.merchantId),
        currency,
      };
    }),
  );
}
