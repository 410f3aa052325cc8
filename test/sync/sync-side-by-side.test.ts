import { setImmediate } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CardIssuingClient, UpstreamError } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/** More cards than one page, so the snapshot and the transaction windows overlap. */
const WORLD = { cards: 1500, transactions: 6000, days: 30, anomaliesPerCode: 0 } as const;

const outage = (operation: string) =>
  new UpstreamError('UPSTREAM_UNAVAILABLE', `${operation}: the upstream answered 503`, {
    operation,
    status: 503,
    attempts: 1,
  });

/**
 * The client, with what `fail` picks refused as an outage. Calls after the refusal are counted
 * when their signal is still live a turn of the event loop later, as the client's limiter
 * would send them: requests that still go out.
 */
function failing(
  api: CardIssuingClient,
  fail: { cardsFromPage?: number; transactionsAfter?: number },
): { api: SyncApi; afterFailure: () => number } {
  let failed = false;
  let afterFailure = 0;
  let transactionCalls = 0;
  const call = async <T>(signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T> => {
    if (failed) {
      await setImmediate();
      if (!signal?.aborted) afterFailure++;
    }
    return send();
  };
  const refuse = (operation: string) => {
    failed = true;
    return Promise.reject(outage(operation));
  };
  return {
    afterFailure: () => afterFailure,
    api: {
      ...syncApiOf(api),
      listCards: (query, options) => {
        if (fail.cardsFromPage !== undefined && (query.page ?? 1) >= fail.cardsFromPage)
          return refuse('listCards');
        return call(options?.signal, () => api.listCards(query, options));
      },
      listTransactions: (query, options) => {
        transactionCalls++;
        if (fail.transactionsAfter !== undefined && transactionCalls > fail.transactionsAfter)
          return refuse('listTransactions');
        return call(options?.signal, () => api.listTransactions(query, options));
      },
    },
  };
}

describe('cards and transactions read side by side', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({ merchants: 1, seed: 'sync-side-by-side', world: WORLD });
  });
  afterAll(async () => w?.close());

  it('read the history before the cards of the first page too: the mirror is exact', async () => {
    const file = `${w.dir}/exact.sqlite`;
    const result = await w.sync({ mirrorFile: file, settings: { maxPagesPerWindow: 20 } });
    expect(result.outcome).toBe('done');
    // The windows read it all: the closing count audit found nothing to read again.
    expect(result.merchants[0]?.audit.reread).toBe(0);
    expect(compareMirror(w.t.sandbox, file)).toEqual(NO_DIFFERENCES);
  });

  for (const [name, fail, step] of [
    ['a card page', { cardsFromPage: 3 }, 'cards'],
    ['a transaction page', { transactionsAfter: 2 }, 'transactions'],
  ] as const) {
    it(`stop together when ${name} fails, naming it, and the next run completes the mirror`, async () => {
      const file = `${w.dir}/${step}.sqlite`;
      let calls: (() => number) | undefined;
      const result = await w.sync({
        mirrorFile: file,
        settings: { concurrency: 2, maxPagesPerWindow: 20 },
        wrapApi: (api) => {
          const wrapped = failing(api, fail);
          calls = wrapped.afterFailure;
          return wrapped.api;
        },
      });
      expect(result.outcome).toBe('incomplete');
      const merchant = result.merchants[0];
      expect(merchant?.error?.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(merchant?.error?.message.startsWith(`${step}: `)).toBe(true);
      // The other work stopped at once (it had pages of cards or windows left): no count
      // audit, and no request after the failure.
      expect(merchant?.audit.outcome).toBe('skipped');
      expect(calls?.()).toBe(0);

      const again = await w.sync({ mirrorFile: file });
      expect(again.outcome).toBe('done');
      expect(compareMirror(w.t.sandbox, file)).toEqual(NO_DIFFERENCES);
    });
  }
});
