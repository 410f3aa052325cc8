import { type DestinationStream, type Logger, pino } from 'pino';
import { redactCardSecrets } from '../contract/card-secrets.js';

/**
 * Paths whose values never reach a log line: keys and tokens, wherever they appear, and the
 * sensitive card fields. Redaction is configuration, not care.
 */
export const REDACTED_PATHS: readonly string[] = [
  'apiKey',
  '*.apiKey',
  'controlToken',
  '*.controlToken',
  'req.headers["x-api-key"]',
  'req.headers["x-control-token"]',
  'headers["x-api-key"]',
  'headers["x-control-token"]',
  'cardNumber',
  '*.cardNumber',
  'cvv',
  '*.cvv',
];

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  readonly level?: string;
  /** Where lines go; stderr by default. */
  readonly destination?: DestinationStream;
}

/** A finished log line (JSON and its line end) without card numbers and CVVs. */
function withoutCardSecretsLine(line: string): string {
  const end = line.endsWith('\n') ? '\n' : '';
  return redactCardSecrets(end ? line.slice(0, -1) : line) + end;
}

/** A pino logger writing JSON lines (stderr by default) with secrets redacted. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
      // The paths above cover known places; a card number or CVV anywhere else in a line (a
      // malformed record's raw form inside an error, say) is taken out of the finished line.
      hooks: { streamWrite: withoutCardSecretsLine },
      base: { pid: process.pid },
    },
    options.destination ?? stderrDestination(),
  );
}

/**
 * Stderr, written synchronously: a line is there when the call returns, in order with the one
 * plain line a failing command writes last (an asynchronous buffer put that line amid the JSON
 * lines a log shipper reads). A run logs a few dozen lines at info, so the writes cost nothing.
 * A write that fails (a log file on a full disk, an I/O error) stops the logging, as pino does
 * for a closed pipe: unheard, the error was thrown from whichever call logged, ending a run at
 * its first line (exit 1, nothing synced, no metrics file) or the process from a timer.
 */
function stderrDestination(): DestinationStream {
  const destination = pino.destination({ fd: 2, sync: true });
  destination.on('error', () => {
    destination.write = () => true;
    destination.flush = (cb) => cb?.();
    destination.flushSync = () => {};
  });
  return destination;
}
