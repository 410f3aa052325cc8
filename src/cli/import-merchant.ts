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
 * Whose books an import is: `--merchant` (a merchant id, or the name of a configured merchant,
 * which stands for its id), else the one merchant the configuration names (its
 * id from the file or CARDSYNC_MERCHANT_ID, or what the mirror learnt for it), else the one
 * merchant the mirror knows. Anything else is ambiguous or unknown: a usage error naming the
 * choices, since importing under the wrong merchant would corrupt its reconciliation.
 */
export function chooseImportMerchant(inputs: ImportMerchantInputs): string {
  const expected = 'expected the merchant id whose books the file holds';
  const { configured } = inputs;
  if (inputs.flag !== undefined) {
    const { flag } = inputs;
    if (!/^\S{1,128}$/.test(flag))
      throw new UsageError(
        `--merchant: ${expected}, 1-128 characters without spaces, got ${JSON.stringify(flag)}`,
      );
    // The other commands' --merchant takes a configured name too: here a name taken as the id
    // would journal the books under a merchant no sync ever sees, and the same file imported
    // again under the real id would be refused as contradicting those rows.
    const named = configured?.find((m) => m.name === flag);
    const isId =
      configured?.some((m) => m.merchantId === flag) ||
      inputs.mirrored.some((m) => m.merchantId === flag);
    if (!named || isId) return flag;
    // CARDSYNC_MERCHANT_ID overrides the merchantId of a file naming one merchant only.
    const id =
      (configured?.length === 1 ? inputs.fromEnv : undefined) ??
      named.merchantId ??
      inputs.mirrored.find((m) => m.source === named.name)?.merchantId;
    if (id !== undefined) return id;
    throw new UsageError(
      `--merchant: ${expected}; ${JSON.stringify(flag)} is the name of a configured merchant that has no merchantId and no sync has learnt it yet`,
    );
  }
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
