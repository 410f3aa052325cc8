import { type Static, Type } from 'typebox';
import { RECON_BOUNDS } from './recon-config.js';
import { type IntegerBounds, SYNC_BOUNDS } from './sync-settings.js';

// Every schema carries a `description` phrased as what is expected: a violation is reported as
// `<key path>: expected <description>`, whatever keyword failed.
const strict = { additionalProperties: false } as const;

const path = (what: string) => Type.String({ minLength: 1, description: `a path to ${what}` });

const wholeNumber = (bounds: IntegerBounds) =>
  Type.Integer({
    minimum: bounds.min,
    maximum: bounds.max,
    description: `a whole number from ${bounds.min} to ${bounds.max}`,
  });

/** One merchant of a config file; its key comes from a file or a variable, never inline. */
export const MerchantEntry = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9_.-]{1,64}$',
      description: "a name of 1-64 letters, digits, '.', '_' or '-'",
    }),
    baseUrl: Type.String({ description: 'an https:// URL' }),
    apiKeyFile: Type.Optional(path('a file holding the key')),
    apiKeyEnv: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'the name of an environment variable holding the key',
      }),
    ),
    caFile: Type.Optional(path('a PEM file of a CA certificate')),
    merchantId: Type.Optional(
      Type.String({
        pattern: '^[^\\s]{1,128}$',
        description: 'a merchant id of 1-128 characters without spaces',
      }),
    ),
  },
  { ...strict, description: 'an object with name, baseUrl and apiKeyFile or apiKeyEnv' },
);
export type MerchantEntry = Static<typeof MerchantEntry>;

/** The `sync` section of a config file. */
export const SyncSectionSchema = Type.Object(
  {
    concurrency: Type.Optional(wholeNumber(SYNC_BOUNDS.concurrency)),
    lookbackHours: Type.Optional(wholeNumber(SYNC_BOUNDS.lookbackHours)),
    safetyLagSeconds: Type.Optional(wholeNumber(SYNC_BOUNDS.safetyLagSeconds)),
    since: Type.Optional(Type.String({ description: 'an ISO 8601 date or date-time with offset' })),
    maxPagesPerWindow: Type.Optional(wholeNumber(SYNC_BOUNDS.maxPagesPerWindow)),
  },
  { ...strict, description: 'an object of sync settings' },
);

/** The `recon` section of a config file; check codes are checked by the reconciliation's own rules. */
export const ReconSectionSchema = Type.Object(
  {
    graceMinutes: Type.Optional(wholeNumber(RECON_BOUNDS.graceMinutes)),
    staleAfterHours: Type.Optional(wholeNumber(RECON_BOUNDS.staleAfterHours)),
    quietSeconds: Type.Optional(wholeNumber(RECON_BOUNDS.quietSeconds)),
    tolerances: Type.Optional(
      Type.Record(Type.String(), wholeNumber(RECON_BOUNDS.tolerance), {
        description: 'an object of check codes to tolerances in minor units',
      }),
    ),
    depositFeeRounding: Type.Optional(
      Type.String({ description: 'one of half-up, half-even, down, up' }),
    ),
    checks: Type.Optional(
      Type.Record(Type.String(), Type.Boolean({ description: 'true or false' }), {
        description: 'an object of check codes to true (run) or false (skip)',
      }),
    ),
  },
  { ...strict, description: 'an object of reconciliation settings' },
);

/**
 * The config file (`--config FILE`). It is JSON rather than YAML or TOML: Node parses it with no
 * extra dependency, and the file needs no comments (every key is documented here). Unknown keys
 * are refused, so a misspelt setting fails instead of being silently ignored; so is a key given
 * twice (read-config-file.ts), which JSON.parse would settle silently by keeping the last.
 *
 * @example
 * {
 *   "db": "./data/cardsync.sqlite",
 *   "merchants": [
 *     { "name": "eu-main", "baseUrl": "https://eu.example.com", "apiKeyFile": "eu.key" },
 *     { "name": "us", "baseUrl": "https://us.example.com", "apiKeyEnv": "CARDSYNC_US_KEY" }
 *   ],
 *   "sync": { "concurrency": 8, "lookbackHours": 72 },
 *   "recon": { "graceMinutes": 60, "checks": { "UNJOURNALED_CARD": false } },
 *   "metricsFile": "/var/lib/node_exporter/textfile/cardsync.prom"
 * }
 */
export const ConfigFileSchema = Type.Object(
  {
    db: Type.Optional(path('the SQLite mirror')),
    reportsDir: Type.Optional(path('the reports folder')),
    merchants: Type.Optional(
      Type.Array(MerchantEntry, { minItems: 1, description: 'a non-empty list of merchants' }),
    ),
    sync: Type.Optional(SyncSectionSchema),
    recon: Type.Optional(ReconSectionSchema),
    metricsFile: Type.Optional(path('the Prometheus textfile written after each run')),
  },
  { ...strict, description: 'a JSON object' },
);
export type ConfigFile = Static<typeof ConfigFileSchema>;
