/**
 * How complete the data a reconciliation read was: the sync it follows and how that ended. An
 * incomplete sync still gets a reconciliation (finance would rather see what is known), and the
 * reports say so.
 */
export interface DataStatus {
  /** The sync run whose mirror was reconciled; null when the mirror was never synced. */
  readonly syncRunId: string | null;
  /** How it ended: `done`, `incomplete`, `unauthorized`, `interrupted`, `failed`, `crashed`, or `none`. */
  readonly syncOutcome: string;
  /** True only when that sync ended `done`. */
  readonly complete: boolean;
  /** Why the data is not complete; null when it is. */
  readonly reason: string | null;
}
