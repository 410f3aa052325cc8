import { UsageError } from './exit-codes.js';

/** A merchant the configuration file names. */
export interface ConfiguredMerchant {
  readonly name: string;
  readonly merchantId?: string | undefined;
}

/** A merchant the mirror knows (from a sync). */
export interface MirroredMerchant {
  readonly merchantId: string;
  readonly source: string;
}

/** Everything {@link chooseImportMerchant} may go by. */
export interface ImportMerchantInputs {
  /** `--merchant`. */
  readonly flag: string | undefined;
  /** The config file's merchants; undefined without a file naming any. */
  readonly configured: readonly ConfiguredMerchant[] | undefined;
  /** CARDSYNC_MERCHANT_ID. */
  readonly fromEnv: string | undefined;
  /** The mirror's merchants, placeholders (`source:...`) left out. */
  readonly mirrored: readonly MirroredMerchant[];
}

/**
 * Whose books an import is: `--merchant`, else the one merchant the configuration names (its
 * id from the file or CARDSYNC_MERCHANT_ID, or what the mirror learnt for it), else the one
 * merchant the mirror knows. Anything else is ambiguous or unknown: a usage error naming the
 * choices, since importing under the wrong merchant would corrupt its reconciliation.
 */
export function chooseImportMerchant(inputs: ImportMerchantInputs): string {
  const expected = 'expected the merchant id whose books the file holds';
  if (inputs.flag !== undefined) {
    if (!/^\S{1,128}$/.test(inputs.flag))
      throw new UsageError(
        `--merchant: ${expected}, 1-128 characters without spaces, got ${JSON.stringify(inputs.flag)}`,
      );
    return inputs.flag;
  }
  const { configured } = inputs;
  if (configured && configured.length > 1)
    throw new UsageError(
      `--merchant: ${expected}; the configuration names ${configured.length} merchants (${configured.map((m) => m.name).join(', ')})`,
    );
  const [only] = configured ?? [];
  if (only) {
    const id =
      inputs.fromEnv ??
      only.merchantId ??
      inputs.mirrored.find((m) => m.source === only.name)?.merchantId;
    if (id !== undefined) return id;
    throw new UsageError(
      `--merchant: ${expected}; the configured merchant ${only.name} has no merchantId and no sync has learnt it yet`,
    );
  }
  if (inputs.fromEnv !== undefined) return inputs.fromEnv;
  const ids = [...new Set(inputs.mirrored.map((m) => m.merchantId))];
  const [one, ...more] = ids;
  if (one !== undefined && more.length === 0) return one;
  throw new UsageError(
    ids.length === 0
      ? `--merchant: ${expected}; neither the configuration nor the mirror names a merchant`
      : `--merchant: ${expected}; the mirror holds ${ids.length} merchants (${ids.join(', ')})`,
  );
}
