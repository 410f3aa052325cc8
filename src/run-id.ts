import { randomBytes } from 'node:crypto';

/**
 * The second `at` falls in, as a run id begins with it: `20261121T020000Z` (UTC, ISO 8601 basic
 * format). Stamps sort as their times do.
 */
export function runStampAt(at: number): string {
  return new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** A run id that sorts by time and names a folder safely, e.g. `20261121T020000Z-3f9a1c`. */
export function newRunId(at: number): string {
  return `${runStampAt(at)}-${randomBytes(3).toString('hex')}`;
}

/** The start stamp a run id begins with (the whole id when it has none). */
export function runStampOf(runId: string): string {
  return runId.split('-')[0] ?? runId;
}
