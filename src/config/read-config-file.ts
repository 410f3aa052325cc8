import { dirname } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ConfigError } from './config-error.js';
import type { ConfigFile } from './config-file-schema.js';
import { duplicateJsonKey } from './duplicate-json-key.js';
import { jsonErrorOffset } from './json-error-offset.js';
import { readSettingFile } from './read-setting-file.js';
import { SettingFileError } from './setting-file-error.js';

/** Far more than any configuration needs; a larger file is not one. */
const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** A config file read and checked against its schema. */
export interface LoadedConfigFile {
  /** Absolute path of the file. */
  readonly path: string;
  /** Its directory: what relative paths inside it resolve against. */
  readonly dir: string;
  readonly content: ConfigFile;
}

let compiled: ValidateFunction<ConfigFile> | undefined;

/**
 * The config file's validator, loaded and compiled when a file is first read: most runs have
 * none, and the schema library and Ajv cost a quarter of a second of start-up. verbose: the
 * failing schema's `description` becomes the message. The data Ajv then attaches is never
 * printed as is: a string in the wrong field could be a key.
 */
async function configValidator(): Promise<ValidateFunction<ConfigFile>> {
  if (compiled) return compiled;
  const [{ Ajv }, { ConfigFileSchema }] = await Promise.all([
    import('ajv'),
    import('./config-file-schema.js'),
  ]);
  compiled = new Ajv({ allErrors: false, verbose: true, strict: true }).compile<ConfigFile>(
    ConfigFileSchema,
  );
  return compiled;
}

/** `/merchants/1/apiKeyFile` as `merchants[1].apiKeyFile`; the root is `config file`. */
function keyPath(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (child !== undefined) segments.push(child);
  return segmentsPath(segments.map((s) => (/^\d+$/.test(s) ? Number(s) : s)));
}

/** `['merchants', 1, 'name']` as `merchants[1].name`; the root is `config file`. */
function segmentsPath(segments: readonly (string | number)[]): string {
  if (segments.length === 0) return 'config file';
  return segments.reduce<string>(
    (key, s, i) => (typeof s === 'number' ? `${key}[${s}]` : i === 0 ? s : `${key}.${s}`),
    '',
  );
}

/** `line 3 column 5` of a UTF-16 offset into `text`. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return `line ${before.split('\n').length} column ${offset - before.lastIndexOf('\n')}`;
}

function kindOf(value: unknown): string {
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify would print as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to read';
  // Past 2^53 JSON.parse rounds to a neighbour (9007199254740993 reads ...992): never quote that.
  if (typeof value === 'number' && Math.abs(value) > Number.MAX_SAFE_INTEGER)
    return 'a number past 2^53, too large to read exactly';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function schemaError(error: ErrorObject, file: string): ConfigError {
  const where = `(in ${file})`;
  const parent = (error.parentSchema ?? {}) as {
    description?: string;
    properties?: Record<string, { description?: string }>;
  };
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty);
    const expected = parent.properties?.[missing]?.description ?? 'a value';
    return new ConfigError(
      keyPath(error.instancePath, missing),
      `expected ${expected}, none given ${where}`,
    );
  }
  if (error.keyword === 'additionalProperties') {
    const known = Object.keys(parent.properties ?? {}).join(', ');
    return new ConfigError(
      keyPath(error.instancePath, String(error.params.additionalProperty)),
      `unknown key; expected one of ${known} ${where}`,
    );
  }
  // A string is not echoed (see above); a number or a wrong type is.
  const got =
    typeof error.data === 'string' && error.keyword !== 'type' ? '' : `, got ${kindOf(error.data)}`;
  return new ConfigError(
    keyPath(error.instancePath),
    `expected ${parent.description ?? error.message}${got} ${where}`,
  );
}

/** Where the text stops being JSON, as `invalid at line 3 column 5`. */
function parseFault(text: string): string {
  if (text.trim() === '') return 'the file is empty';
  const offset = jsonErrorOffset(text) ?? text.length;
  if (offset >= text.length) return 'it ends early';
  return `invalid at ${lineAndColumn(text, offset)}`;
}

/** An inline key is refused before anything else, with the way to give one instead. */
function refuseInlineKeys(parsed: unknown): void {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(parsed)) return;
  const refuse = (key: string) =>
    new ConfigError(key, 'an inline key is refused; use apiKeyFile or apiKeyEnv');
  if (Object.hasOwn(parsed, 'apiKey')) throw refuse('apiKey');
  if (!Array.isArray(parsed.merchants)) return;
  for (const [i, merchant] of parsed.merchants.entries()) {
    if (isObject(merchant) && Object.hasOwn(merchant, 'apiKey')) {
      throw refuse(`merchants[${i}].apiKey`);
    }
  }
}

/**
 * Read a config file (an absolute path; a regular file, see readSettingFile) and check it against its schema (config-file-schema.ts).
 *
 * @example
 * const file = await readConfigFile('/etc/cardsync/cardsync.json');
 * file.content.merchants?.[0]?.name;
 * @throws ConfigError: `--config` when the file cannot be read, `config file` when it is not
 * JSON (with the line and column), otherwise the path of the first offending key.
 */
export async function readConfigFile(path: string): Promise<LoadedConfigFile> {
  let text: string;
  try {
    text = await readSettingFile(path, MAX_CONFIG_FILE_BYTES);
  } catch (cause) {
    if (!(cause instanceof SettingFileError)) throw cause;
    throw new ConfigError('--config', `expected a readable JSON file, ${cause.reason(path)}`, {
      cause,
    });
  }
  text = text.replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's error is not kept as the cause: it may quote the text, which may hold a key.
    throw new ConfigError('config file', `expected JSON in ${path}, ${parseFault(text)}`);
  }
  refuseInlineKeys(parsed);
  const repeated = duplicateJsonKey(text);
  if (repeated) {
    throw new ConfigError(
      segmentsPath(repeated.path),
      `expected each key once, it is given again at ${lineAndColumn(text, repeated.offset)} (in ${path})`,
    );
  }
  const validate = await configValidator();
  if (!validate(parsed)) {
    const first = validate.errors?.[0];
    throw first
      ? schemaError(first, path)
      : new ConfigError('config file', `expected a valid config in ${path}`);
  }
  return { path, dir: dirname(path), content: parsed };
}
