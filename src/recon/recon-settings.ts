import { ROUNDING_MODES, type RoundingMode } from '../money/rounding.js';
import { CHECK_CODES, type CheckCode, isCheckCode } from './check-code.js';
import { ReconSettingsError } from './recon-settings-error.js';

/** The checks that compare two amounts, and so take a tolerance. */
export const TOLERANCE_CODES = [
  'CARD_BALANCE_MISMATCH',
  'ISSUANCE_FEE_MISMATCH',
  'DEPOSIT_FEE_MISMATCH',
  'WITHDRAWAL_FEE_MISMATCH',
  'OVER_REFUND',
  'MERCHANT_BALANCE_MISMATCH',
] as const satisfies readonly CheckCode[];

/** A check that takes a tolerance. */
export type ToleranceCode = (typeof TOLERANCE_CODES)[number];

/** The reconciliation's tunables, validated and frozen. */
export interface ReconSettings {
  /** How long an accepted order may stay without its outcome (default 1 h). */
  readonly graceMs: number;
  /** How old a PENDING transaction may get before it is stale (default 7 days). */
  readonly staleAfterMs: number;
  /** MERCHANT_BALANCE_MISMATCH skips an interval with an order this close to a snapshot (2 min). */
  readonly quietMs: number;
  /** Differences up to this many minor units are not findings (default 0 for every check). */
  readonly tolerances: Readonly<Record<ToleranceCode, number>>;
  /** How the deposit fee is rounded to the currency's exponent (default half-up, away from zero). */
  readonly depositFeeRounding: RoundingMode;
  /** Which checks run (default all). */
  readonly enabled: Readonly<Record<CheckCode, boolean>>;
}

/** What a caller may override; everything else keeps its default. */
export interface ReconSettingsInput {
  readonly graceMs?: number;
  readonly staleAfterMs?: number;
  readonly quietMs?: number;
  readonly tolerances?: Readonly<Partial<Record<string, number>>>;
  readonly depositFeeRounding?: string;
  /** `false` turns a check off. */
  readonly checks?: Readonly<Partial<Record<string, boolean>>>;
}

const HOUR = 3_600_000;

/** The defaults of reference-model.md section 6. */
export const DEFAULT_RECON_SETTINGS: ReconSettings = reconSettings();

/**
 * Validate `input` over the defaults and freeze the result.
 * @example reconSettings({ graceMs: 2 * 3_600_000, checks: { UNJOURNALED_CARD: false } })
 * @throws ReconSettingsError naming the key and what was expected.
 */
export function reconSettings(input: ReconSettingsInput = {}): ReconSettings {
  const tolerances = Object.fromEntries(TOLERANCE_CODES.map((code) => [code, 0])) as Record<
    ToleranceCode,
    number
  >;
  for (const [key, value] of Object.entries(input.tolerances ?? {})) {
    if (!(TOLERANCE_CODES as readonly string[]).includes(key))
      throw new ReconSettingsError(
        `tolerances.${key}`,
        `one of ${TOLERANCE_CODES.join(', ')}`,
        key,
      );
    tolerances[key as ToleranceCode] = minorUnits(`tolerances.${key}`, value);
  }
  const enabled = Object.fromEntries(CHECK_CODES.map((code) => [code, true])) as Record<
    CheckCode,
    boolean
  >;
  for (const [key, value] of Object.entries(input.checks ?? {})) {
    if (!isCheckCode(key))
      throw new ReconSettingsError(
        `checks.${key}`,
        'a check code of reference-model.md section 6',
        key,
      );
    if (typeof value !== 'boolean')
      throw new ReconSettingsError(`checks.${key}`, 'true or false', value);
    enabled[key] = value;
  }
  const rounding = input.depositFeeRounding ?? 'half-up';
  if (!(ROUNDING_MODES as readonly string[]).includes(rounding))
    throw new ReconSettingsError(
      'depositFeeRounding',
      `one of ${ROUNDING_MODES.join(', ')}`,
      rounding,
    );
  return Object.freeze({
    graceMs: duration('graceMs', input.graceMs ?? HOUR),
    staleAfterMs: duration('staleAfterMs', input.staleAfterMs ?? 7 * 24 * HOUR),
    quietMs: duration('quietMs', input.quietMs ?? 2 * 60_000),
    tolerances: Object.freeze(tolerances),
    depositFeeRounding: rounding as RoundingMode,
    enabled: Object.freeze(enabled),
  });
}

function duration(key: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ReconSettingsError(key, 'a whole number of milliseconds, 0 or more', value);
  return value;
}

function minorUnits(key: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ReconSettingsError(key, 'a whole number of minor units, 0 or more', value);
  return value;
}
