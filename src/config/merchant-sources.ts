import { resolve } from 'node:path';
import { keyFromEnv, readKeyFile } from './api-key.js';
import { readCaFile } from './ca-file.js';
import { ConfigError } from './config-error.js';
import type { MerchantEntry } from './config-file-schema.js';
import { parseBaseUrl } from './https-url.js';
import type { ConfigInputs, MerchantSource } from './job-config.js';
import type { LoadedConfigFile } from './read-config-file.js';

/** The name of the one merchant built from flags and variables when no file names any. */
export const DEFAULT_MERCHANT_NAME = 'default';

/** A value and the key it came from (`--base-url`, `merchants[0].baseUrl`), for messages. */
interface Sourced {
  readonly key: string;
  readonly value: string;
}

/** Where a key is read from: a file (absolute path) or an environment variable. */
interface KeySpec {
  readonly key: string;
  readonly from: 'file' | 'env';
  /** The file's path or the variable's name. */
  readonly ref: string;
}

/** What flags and variables say about the upstream; each overrides a file's one merchant. */
interface Overrides {
  readonly baseUrl: Sourced | undefined;
  readonly apiKey: KeySpec | undefined;
  readonly caFile: Sourced | undefined;
  readonly merchantId: Sourced | undefined;
}

/** A merchant before anything is read: which key each of its settings comes from. */
interface Draft extends Overrides {
  readonly name: string;
}

function overridesOf({ env, flags, cwd }: ConfigInputs): Overrides {
  const variable = (name: string): Sourced | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : { key: name, value };
  };
  const flagOr = (flag: string, value: string | undefined, name: string) =>
    value !== undefined ? { key: flag, value } : variable(name);
  const inlineKey = variable('CARDSYNC_API_KEY');
  const keyFile = variable('CARDSYNC_API_KEY_FILE');
  if (inlineKey && keyFile) {
    throw new ConfigError(
      'CARDSYNC_API_KEY',
      'expected CARDSYNC_API_KEY or CARDSYNC_API_KEY_FILE, not both',
    );
  }
  const apiKey: KeySpec | undefined = keyFile
    ? { key: keyFile.key, from: 'file', ref: resolve(cwd, keyFile.value) }
    : inlineKey && { key: inlineKey.key, from: 'env', ref: inlineKey.key };
  // An empty flag is a mistake (an unset shell variable), as `--db ""` is; an empty variable is unset.
  if (flags.caFile === '') throw new ConfigError('--ca-file', 'expected a path, got ""');
  const caFile = flagOr('--ca-file', flags.caFile, 'CARDSYNC_CA_FILE');
  return {
    baseUrl: flagOr('--base-url', flags.baseUrl, 'CARDSYNC_BASE_URL'),
    apiKey,
    caFile: caFile && { key: caFile.key, value: resolve(cwd, caFile.value) },
    merchantId: flagOr('--merchant-id', flags.merchantId, 'CARDSYNC_MERCHANT_ID'),
  };
}

function draftsFromFile(
  file: LoadedConfigFile,
  entries: readonly MerchantEntry[],
  overrides: Overrides,
): Draft[] {
  const { baseUrl, apiKey, caFile, merchantId } = overrides;
  const first = baseUrl ?? apiKey ?? caFile ?? merchantId;
  if (entries.length > 1 && first) {
    const names = entries.map((m) => m.name).join(', ');
    throw new ConfigError(
      first.key,
      `expected no upstream override with a config file naming ${entries.length} merchants (${names}); set it per merchant in ${file.path}`,
    );
  }
  const seen = new Map<string, number>();
  return entries.map((entry, i) => {
    const at = `merchants[${i}]`;
    const earlier = seen.get(entry.name);
    if (earlier !== undefined) {
      throw new ConfigError(
        `${at}.name`,
        `expected a unique merchant name, ${JSON.stringify(entry.name)} is also merchants[${earlier}].name`,
      );
    }
    seen.set(entry.name, i);
    if (entry.apiKeyFile !== undefined && entry.apiKeyEnv !== undefined) {
      throw new ConfigError(at, 'expected exactly one of apiKeyFile or apiKeyEnv, got both');
    }
    const fromFile: KeySpec | undefined =
      entry.apiKeyFile !== undefined
        ? { key: `${at}.apiKeyFile`, from: 'file', ref: resolve(file.dir, entry.apiKeyFile) }
        : entry.apiKeyEnv !== undefined
          ? { key: `${at}.apiKeyEnv`, from: 'env', ref: entry.apiKeyEnv }
          : undefined;
    const apiKey = overrides.apiKey ?? fromFile;
    if (!apiKey) throw new ConfigError(at, 'expected one of apiKeyFile or apiKeyEnv, got neither');
    const sourced = (name: 'baseUrl' | 'merchantId' | 'caFile', value: string | undefined) =>
      value === undefined ? undefined : { key: `${at}.${name}`, value };
    return {
      name: entry.name,
      baseUrl: overrides.baseUrl ?? sourced('baseUrl', entry.baseUrl),
      apiKey,
      caFile:
        overrides.caFile ??
        sourced('caFile', entry.caFile === undefined ? undefined : resolve(file.dir, entry.caFile)),
      merchantId: overrides.merchantId ?? sourced('merchantId', entry.merchantId),
    };
  });
}

/** {@link MerchantSource.keyWarning} for a key file every user may read; never its path. */
function worldReadableKey({ key }: KeySpec): string {
  return `${key}: the key file it names can be read by every user of this host; make it readable by its owner (and group) only, e.g. chmod 600`;
}

/** {@link MerchantSource.keyOrigin} of `spec`. */
function keyOrigin({ key, from, ref }: KeySpec): string {
  if (from === 'file') return `the file ${key} names`;
  return key === ref ? key : `${ref} (${key})`;
}

async function resolveDraft(draft: Draft, env: ConfigInputs['env']): Promise<MerchantSource> {
  if (!draft.baseUrl) {
    throw new ConfigError(
      'CARDSYNC_BASE_URL',
      'expected an https:// URL (or --base-url), none given',
    );
  }
  const baseUrl = parseBaseUrl(draft.baseUrl.key, draft.baseUrl.value);
  if (!draft.apiKey) {
    throw new ConfigError(
      'CARDSYNC_API_KEY',
      'expected the key in CARDSYNC_API_KEY or in a file named by CARDSYNC_API_KEY_FILE, neither is set',
    );
  }
  const { key, from, ref } = draft.apiKey;
  const keyFile = from === 'file' ? await readKeyFile(key, ref) : undefined;
  const apiKey = keyFile?.apiKey ?? keyFromEnv(key, env, ref);
  const merchantId = draft.merchantId;
  if (merchantId && !/^\S{1,128}$/.test(merchantId.value)) {
    throw new ConfigError(
      merchantId.key,
      'expected a merchant id of 1-128 characters without spaces',
    );
  }
  const caFile = draft.caFile?.value;
  const ca = draft.caFile && (await readCaFile(draft.caFile.key, draft.caFile.value, apiKey));
  const source = {
    name: draft.name,
    baseUrl,
    keySource: `${from} ${ref}`,
    keyOrigin: keyOrigin(draft.apiKey),
    ...(keyFile?.worldReadable ? { keyWarning: worldReadableKey(draft.apiKey) } : {}),
    ...(ca === undefined ? {} : { ca, caFile }),
    ...(merchantId ? { merchantId: merchantId.value } : {}),
  };
  // Not enumerable: no logger, JSON.stringify or spread of a source can carry the key along.
  Object.defineProperty(source, 'apiKey', { value: apiKey, enumerable: false });
  return source as MerchantSource;
}

/**
 * The merchants to sync: those of the config file, or one named `default` built from flags and
 * variables. Flags and variables override the file's merchant when it names exactly one, and
 * are refused when it names several (which one would they mean?), and so are two merchants with
 * the same base URL and key. Relative paths resolve
 * against the config file's directory for its values, against `inputs.cwd` for the others.
 *
 * @example
 * const merchants = await resolveMerchants(inputs, file);
 * merchants.map((m) => m.name); // ['eu-main', 'us']
 * @throws ConfigError naming the first offending key.
 */
export async function resolveMerchants(
  inputs: ConfigInputs,
  file: LoadedConfigFile | undefined,
): Promise<MerchantSource[]> {
  const overrides = overridesOf(inputs);
  const entries = file?.content.merchants;
  const drafts =
    file && entries
      ? draftsFromFile(file, entries, overrides)
      : [{ name: DEFAULT_MERCHANT_NAME, ...overrides }];
  const merchants: MerchantSource[] = [];
  const ids = new Map<string, string>();
  for (const draft of drafts) {
    const merchant = await resolveDraft(draft, inputs.env);
    // The same upstream read with the same key is the same merchant twice: a copied entry whose
    // key was never changed, which would sync one merchant twice and the intended one never.
    const twin = merchants.find(
      (m) => m.baseUrl === merchant.baseUrl && m.apiKey === merchant.apiKey,
    );
    if (twin && draft.apiKey) {
      throw new ConfigError(
        draft.apiKey.key,
        `expected a key of its own for ${merchant.baseUrl}, merchant ${twin.name} reads it with the same key`,
      );
    }
    if (merchant.merchantId !== undefined && draft.merchantId) {
      const other = ids.get(merchant.merchantId);
      if (other !== undefined) {
        throw new ConfigError(
          draft.merchantId.key,
          `expected a merchant id of its own, merchant ${other} has the same`,
        );
      }
      ids.set(merchant.merchantId, merchant.name);
    }
    merchants.push(merchant);
  }
  return merchants;
}
