import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { deepFreeze } from './deep-freeze.js';
import type { ConfigInputs, JobConfig } from './job-config.js';
import { resolveMerchants } from './merchant-sources.js';
import { proxySetting } from './proxy-setting.js';
import { type LoadedConfigFile, readConfigFile } from './read-config-file.js';
import { resolveReconSettings } from './recon-config.js';
import { resolveSyncSettings } from './sync-settings.js';

/** Where the mirror and the reports go when nothing says otherwise (relative to `cwd`). */
export const DEFAULT_DB = './data/cardsync.sqlite';
export const DEFAULT_REPORTS_DIR = './reports';

/** An absolute path, and the flag, variable or config file key it came from. */
interface PathSetting {
  readonly path: string;
  readonly origin: string;
}

/**
 * An absolute path: a flag over a variable (both relative to `cwd`) over the config file's
 * value (relative to the file) over the default (relative to `cwd`, named after the variable).
 */
function pathSetting(
  inputs: ConfigInputs,
  flag: { name: string; value: string | undefined },
  variable: string,
  fromFile: { key: string; value: string | undefined },
  file: LoadedConfigFile | undefined,
  fallback: string,
): PathSetting {
  const fromEnv = inputs.env[variable];
  if (flag.value !== undefined) {
    if (flag.value === '') throw new ConfigError(flag.name, 'expected a path, got ""');
    return { path: resolve(inputs.cwd, unspaced(flag.name, flag.value)), origin: flag.name };
  }
  if (fromEnv !== undefined && fromEnv !== '')
    return { path: resolve(inputs.cwd, unspaced(variable, fromEnv)), origin: variable };
  if (fromFile.value !== undefined && file)
    return {
      path: resolve(file.dir, unspaced(fromFile.key, fromFile.value)),
      origin: fromFile.key,
    };
  return { path: resolve(inputs.cwd, fallback), origin: variable };
}

/**
 * `value`, refused with `key` when whitespace starts or ends it: SQLite opens `mirror.sqlite ` as
 * `mirror.sqlite` while the checks before it take the name as given (a `sync` wrote to the mirror
 * a `reconcile` then found missing), and a reports folder `reports ` is a new, unwatched folder.
 */
function unspaced(key: string, value: string): string {
  if (value.trim() !== value)
    throw new ConfigError(
      key,
      `expected a path without spaces around it, got ${JSON.stringify(value.slice(0, 200))}`,
    );
  return value;
}

/** Like {@link pathSetting}, for a setting that is off unless given somewhere. */
function optionalPathSetting(
  inputs: ConfigInputs,
  flag: { name: string; value: string | undefined },
  variable: string,
  fromFile: { key: string; value: string | undefined },
  file: LoadedConfigFile | undefined,
): PathSetting | undefined {
  const given =
    flag.value !== undefined ||
    (inputs.env[variable] ?? '') !== '' ||
    (fromFile.value !== undefined && file !== undefined);
  return given ? pathSetting(inputs, flag, variable, fromFile, file, '') : undefined;
}

/**
 * Read the job's configuration once: flags over environment variables over the config file
 * (`--config`) over defaults; validate every value; resolve keys and CA files; deep-freeze the
 * result. Nothing here reads `process.env` or `process.cwd()`: they come in `inputs`.
 *
 * @example
 * const config = await loadJobConfig({
 *   env: process.env,
 *   cwd: process.cwd(),
 *   flags: { config: 'cardsync.json', concurrency: '4' },
 *   requireUpstream: true,
 * });
 * logger.info({ config: describeConfig(config) }, 'configured');
 * @throws ConfigError (code `CONFIG_INVALID`) with a one-line message naming the key.
 */
export async function loadJobConfig(inputs: ConfigInputs): Promise<JobConfig> {
  const { flags } = inputs;
  if (flags.config === '') throw new ConfigError('--config', 'expected a path, got ""');
  const file =
    flags.config === undefined
      ? undefined
      : await readConfigFile(resolve(inputs.cwd, flags.config));
  const content = file?.content;
  const db = pathSetting(
    inputs,
    { name: '--db', value: flags.db },
    'CARDSYNC_DB',
    { key: 'db', value: content?.db },
    file,
    DEFAULT_DB,
  );
  const reportsDir = pathSetting(
    inputs,
    { name: '--reports-dir', value: flags.reportsDir },
    'CARDSYNC_REPORTS_DIR',
    { key: 'reportsDir', value: content?.reportsDir },
    file,
    DEFAULT_REPORTS_DIR,
  );
  const metricsFile = optionalPathSetting(
    inputs,
    { name: '--metrics-file', value: flags.metricsFile },
    'CARDSYNC_METRICS_FILE',
    { key: 'metricsFile', value: content?.metricsFile },
    file,
  );
  const sync = resolveSyncSettings(flags, content?.sync ?? {}, (inputs.now ?? Date.now)());
  const recon = resolveReconSettings(flags, inputs.env, content?.recon);
  const merchants = inputs.requireUpstream ? await resolveMerchants(inputs, file) : [];
  const proxy = inputs.requireUpstream ? proxySetting(inputs.env) : undefined;
  return deepFreeze({
    db: db.path,
    reportsDir: reportsDir.path,
    merchants,
    ...(proxy === undefined ? {} : { proxy }),
    sync,
    recon,
    ...(metricsFile === undefined ? {} : { metricsFile: metricsFile.path }),
    origins: {
      db: db.origin,
      reportsDir: reportsDir.origin,
      ...(metricsFile === undefined ? {} : { metricsFile: metricsFile.origin }),
    },
  });
}
