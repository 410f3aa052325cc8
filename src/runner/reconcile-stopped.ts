/**
 * A reconciliation stopped (SIGTERM, SIGINT) before it recorded anything: no findings recorded,
 * no report folder, `latest` left alone. The CLI ends it with exit 4, as a stopped sync.
 * @example if (signal.aborted) throw new ReconcileStoppedError();
 */
export class ReconcileStoppedError extends Error {
  readonly code = 'RECONCILE_STOPPED';

  constructor() {
    super(
      'reconcile stopped (SIGTERM or SIGINT) before recording; nothing was recorded and no report was written',
    );
    this.name = 'ReconcileStoppedError';
  }
}
