import type { ReconSettings } from '../recon/recon-settings.js';
import type { ProxySetting } from './proxy-setting.js';

/**
 * One upstream merchant to sync: where it is, and the key it is read with.
 *
 * `apiKey` is a non-enumerable property: it is there to read (`source.apiKey`), but
 * `JSON.stringify`, a logger and `{ ...source }` all leave it out, so a merchant logged whole
 * cannot leak its key. Copy it explicitly when building another object from a source.
 */
export interface MerchantSource {
  /** Unique within the configuration; `default` for the one built from the environment. */
  readonly name: string;
  /** `https://` only; no trailing slash, query or fragment. */
  readonly baseUrl: string;
  /** The resolved secret (non-enumerable; see above). */
  readonly apiKey: string;
  /** Where the key came from, safe to log: `file /etc/cardsync/eu.key`, `env CARDSYNC_US_KEY`. */
  readonly keySource: string;
  /**
   * The setting an operator renews the key through, for messages (a 401): `the file
   * CARDSYNC_API_KEY_FILE names`, `the file merchants[0].apiKeyFile names`, `CARDSYNC_API_KEY`,
   * `CARDSYNC_US_KEY (merchants[1].apiKeyEnv)`. Never the key, nor a key file's path.
   */
  readonly keyOrigin: string;
  /**
   * Why the key's file is a risk, to log as a warning each time it is read: it can be read by
   * every user of the host. Names the setting, never the path.
   */
  readonly keyWarning?: string;
  /** PEM text read from `caFile`: an extra trusted CA for the upstream's certificate. */
  readonly ca?: string;
  /** Absolute path of the CA file. */
  readonly caFile?: string;
  /** The merchant's id as the upstream knows it; learnt from the cards when absent. */
  readonly merchantId?: string;
}

/** How a sync walks the upstream. */
export interface SyncSettings {
  /** Parallel requests per merchant, 1..64 (default 8). */
  readonly concurrency: number;
  /** How far before the last cutoff a sync reads again, 0..2160 hours (default 72). */
  readonly lookbackHours: number;
  /** How far behind upstream "now" a window ends, 0..86400 seconds (default 60). */
  readonly safetyLagSeconds: number;
  /** Where a first sync starts, as `2025-01-01T00:00:00.000Z`; absent, the sync's default. */
  readonly since?: string;
  /** Pages read in one time window before it is split, 2..1000 (default 20). */
  readonly maxPagesPerWindow: number;
}

/** The job's whole configuration, read once, validated and deep-frozen. */
export interface JobConfig {
  /** Absolute path of the SQLite mirror. */
  readonly db: string;
  /** Absolute path of the reports folder. */
  readonly reportsDir: string;
  /** Every merchant to sync; empty when the command does not talk to the upstream. */
  readonly merchants: readonly MerchantSource[];
  /**
   * The proxy the upstream is reached through (`HTTPS_PROXY` and the like, with `NO_PROXY`);
   * absent when none is set, or when the command does not talk to the upstream.
   */
  readonly proxy?: ProxySetting;
  readonly sync: SyncSettings;
  /** The reconciliation's settings (grace, staleAfter, tolerances, rounding, checks on/off). */
  readonly recon: ReconSettings;
  /** Absolute path of the Prometheus textfile written after each run; none when absent. */
  readonly metricsFile?: string;
  /** Where each path came from, for messages: see {@link PathOrigins}. */
  readonly origins: PathOrigins;
}

/**
 * The flag, variable or config file key that gave each path (`--db`, `CARDSYNC_DB`, `db`), so
 * a message names the setting to fix; the variable when the default applies.
 */
export interface PathOrigins {
  readonly db: string;
  readonly reportsDir: string;
  readonly metricsFile?: string;
}

/** Command-line flags as text, exactly as given; a key is never one of them. */
export interface ConfigFlags {
  readonly config?: string;
  readonly db?: string;
  readonly reportsDir?: string;
  readonly baseUrl?: string;
  readonly caFile?: string;
  readonly merchantId?: string;
  readonly since?: string;
  readonly lookbackHours?: string;
  readonly concurrency?: string;
  readonly safetyLagSeconds?: string;
  readonly metricsFile?: string;
  readonly graceMinutes?: string;
  readonly staleAfterHours?: string;
  readonly quietSeconds?: string;
  /** `--tolerance CODE=N`, each as given. */
  readonly tolerance?: readonly string[];
  /** `--check CODE=on|off`, each as given. */
  readonly check?: readonly string[];
  readonly depositFeeRounding?: string;
}

/** Everything the configuration is read from; the CLI passes `process.env` and `process.cwd()`. */
export interface ConfigInputs {
  /** Environment variables; an empty value counts as unset. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory that relative paths from flags and variables resolve against. */
  readonly cwd: string;
  readonly flags: ConfigFlags;
  /** False for commands that never call the upstream: no merchant, key or CA is then read. */
  readonly requireUpstream: boolean;
  /** The wall clock in ms, for settings that may not lie in the future (`--since`); `Date.now`. */
  readonly now?: () => number;
}
