import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { CardIssuingClient, type CardIssuingClientOptions } from '../../src/api/index.js';
import type { Offering } from '../../src/contract/index.js';
import { createLogger } from '../../src/log/logger.js';
import type { FaultRule } from '../../src/sandbox/faults/fault-rule.js';
import type { TestSandbox } from '../support/test-sandbox.js';

/** A sleep that records every requested wait and resolves at once, so retries cost no time. */
export interface RecordingSleep {
  readonly waits: number[];
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A {@link RecordingSleep}; it still honours an aborted signal like the real one. */
export function recordingSleep(): RecordingSleep {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms, signal) => {
      waits.push(ms);
      signal?.throwIfAborted();
    },
  };
}

/** Log lines captured in memory from a real pino logger (the project's redaction on). */
export interface CapturedLog {
  readonly logger: Logger;
  /** Every line written so far, as text. */
  text(): string;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
}

/** A logger writing into memory, at `level` (debug unless told). */
export function capturedLog(level = 'debug'): CapturedLog {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level, destination: stream });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** A silent logger for tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });

/**
 * A client for merchant `merchant` of the test sandbox, trusting its CA, with waits recorded
 * instead of slept and a fixed jitter draw (0.5).
 */
export function sandboxClient(
  t: TestSandbox,
  options: Partial<CardIssuingClientOptions> & { merchant?: number } = {},
): { client: CardIssuingClient; waits: number[] } {
  const { merchant = 0, ...rest } = options;
  const recorder = recordingSleep();
  const client = new CardIssuingClient({
    baseUrl: t.sandbox.baseUrl,
    apiKey: t.sandbox.merchants[merchant]?.apiKey ?? '',
    ca: t.sandbox.caPem,
    random: () => 0.5,
    sleep: recorder.sleep,
    logger: silentLogger,
    ...rest,
  });
  return { client, waits: recorder.waits };
}

/** Replace the sandbox's fault rules (in process: the lab is the one `/_control/faults` drives). */
export function setFaults(t: TestSandbox, rules: FaultRule[]): void {
  t.sandbox.faults.replace(rules);
}

/** Process one pending order through the control surface (the sandbox always names it). */
export async function processOrder(t: TestSandbox, orderNo: string | undefined): Promise<void> {
  if (orderNo === undefined) throw new Error('the sandbox answered an order without an orderNo');
  const answer = await t.control.post('/_control/orders/process', { orderNo, outcome: 'success' });
  if (answer.status !== 200) throw new Error(`process ${orderNo}: ${answer.status} ${answer.text}`);
}

/** The first offering that needs no holder. */
export async function holderFree(client: CardIssuingClient): Promise<Offering> {
  const { records } = await client.listOfferings();
  const offering = records.find((o) => !o.requiresHolder);
  if (!offering) throw new Error('no offering without a holder');
  return offering;
}

/** Every card id of the merchant, read page by page through the client. */
export async function cardIds(client: CardIssuingClient): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let page = 1; ; page++) {
    const result = await client.listCards({ page, limit: 100 });
    for (const card of result.records) ids.add(card.cardId);
    if (page >= result.pagination.totalPages) return ids;
  }
}
