import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/exit-codes.js';
import { exitCodeOf, jobExit } from '../../src/cli/job-errors.js';
import { logRunOutcome } from '../../src/cli/run-outcome-log.js';
import { ConfigError } from '../../src/config/config-error.js';
import { MirrorError } from '../../src/mirror/mirror-error.js';
import { ReportError } from '../../src/reports/report-error.js';
import { capturedLog } from '../api/client-fixtures.js';

const HOLDER =
  'another run (20261121T020000Z-3f9a1c, pid 4242 on db1, since 2026-11-21T02:00:00.000Z) holds the lock on this mirror';

/** The `run finished` line a scheduled run that failed with `thrown` logs. */
function finishedLine(thrown: unknown) {
  const log = capturedLog('info');
  const error = jobExit(thrown, { file: '/var/lib/cardsync/mirror.sqlite', syncing: false });
  logRunOutcome(log.logger, {
    command: 'run',
    runId: '20261121T020000Z-3f9a1c',
    exitCode: exitCodeOf(error),
    durationMs: 12,
    error,
  });
  const lines = log.lines().filter((l) => l.msg === 'run finished');
  expect(lines).toHaveLength(1);
  return { line: lines[0]!, text: log.text() };
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('the run finished line of a scheduled run that failed', () => {
  it('names the error code and message of a run refused by the lock (5), as --json would, once', () => {
    const { line, text } = finishedLine(new MirrorError('MIRROR_LOCKED', HOLDER));
    expect(line).toMatchObject({
      exitCode: 5,
      outcome: 'locked',
      error: { code: 'MIRROR_LOCKED', message: HOLDER },
    });
    // An expected failure is one line for the operator, not a stack trace with its cause's
    // message appended to its own.
    expect(occurrences(text, HOLDER)).toBe(1);
    expect(line).not.toHaveProperty('err');
  });

  it('names the report code of a run whose report folder could not be written (1)', () => {
    const cause = new ReportError(
      'REPORT_WRITE_FAILED',
      'cannot write the report folder /r/x: EEXIST',
    );
    const { line, text } = finishedLine(cause);
    expect(line).toMatchObject({
      exitCode: 1,
      outcome: 'internal_error',
      error: { code: 'REPORT_WRITE_FAILED', message: `reports: ${cause.message}` },
    });
    expect(occurrences(text, cause.message)).toBe(1);
  });

  it('names the configuration key of a run whose configuration no longer loads (2)', () => {
    // What loadConfig throws when a tick re-reads a configuration that no longer loads.
    const cause = new ConfigError('CARDSYNC_API_KEY_FILE', 'expected a readable key file (ENOENT)');
    const { line, text } = finishedLine(new UsageError(cause.message, { cause }));
    expect(line).toMatchObject({
      exitCode: 2,
      outcome: 'usage_error',
      error: { code: 'CONFIG_INVALID', message: cause.message },
    });
    expect(occurrences(text, cause.message)).toBe(1);
  });

  it('keeps the stack of an internal error, which is a bug to report', () => {
    const { line } = finishedLine(
      new TypeError("Cannot read properties of undefined (reading 'x')"),
    );
    expect(line).toMatchObject({
      exitCode: 1,
      error: {
        code: null,
        message: "internal error: Cannot read properties of undefined (reading 'x')",
      },
      err: { type: 'TypeError', stack: expect.stringContaining('TypeError') },
    });
  });
});
