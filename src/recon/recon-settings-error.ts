/** A reconciliation setting with a bad value; `key` names it (e.g. `tolerances.OVER_REFUND`). */
export class ReconSettingsError extends Error {
  readonly code = 'RECON_SETTINGS_INVALID';
  readonly key: string;

  constructor(key: string, expected: string, got: unknown) {
    super(`${key}: expected ${expected}, got ${JSON.stringify(got)}`);
    this.name = 'ReconSettingsError';
    this.key = key;
  }
}
