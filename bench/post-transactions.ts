import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { currencyExponent } from '../src/money/currency.js';
import { formatMinor } from '../src/money/decimal.js';
import { Database } from '../src/sqlite-driver.js';
import type { SandboxAnnouncement } from './sandbox-process.js';

/** What posting new transactions did. */
export interface PostedTransactions {
  readonly seconds: number;
  /** Transactions the sandbox recorded (201), whatever the network decided. */
  readonly recorded: number;
  /** Of those, how many the card network declined. */
  readonly declined: number;
  readonly cards: number;
}

/** Options of {@link postNewTransactions}. */
export interface PostTransactionsOptions {
  readonly sandbox: SandboxAnnouncement;
  /** The sandbox's SQLite state file, read (read-only) to choose cards that can pay. */
  readonly sandboxFile: string;
  readonly count: number;
  readonly inFlight: number;
  /** Purchases per card (spread over count / perCard cards). */
  readonly perCard?: number;
}

/**
 * Add `count` new transactions the way the card network would, through the control surface
 * (`POST /_control/cards/:id/transactions`, one per request: the surface has no bulk form):
 * completed purchases of one major unit, spread over many ACTIVE cards with the balance to pay.
 * @throws Error when the sandbox refuses a request or has too few cards that can pay.
 */
export async function postNewTransactions(
  options: PostTransactionsOptions,
): Promise<PostedTransactions> {
  const { sandbox } = options;
  const merchant = sandbox.merchants[0];
  if (!merchant || !sandbox.controlToken) throw new Error('the sandbox has no control surface');
  const perCard = options.perCard ?? 4;
  const wanted = Math.ceil(options.count / perCard);
  const source = new Database(options.sandboxFile, { readonly: true, fileMustExist: true });
  let cards: { cardId: string; currency: string }[];
  try {
    cards = source
      .prepare(
        `SELECT card_id AS cardId, currency FROM cards
         WHERE merchant_id = ? AND status = 'ACTIVE' AND balance_minor >= ?
         ORDER BY card_id LIMIT ?`,
      )
      // Room for every purchase twice over, in any currency up to three decimals.
      .all(merchant.merchantId, perCard * 2 * 1000, wanted) as typeof cards;
  } finally {
    source.close();
  }
  if (cards.length === 0) throw new Error('no ACTIVE card with a balance to pay');
  const jobs = Array.from({ length: options.count }, (_, i) => cards[i % cards.length]!);
  const agent = new Agent({
    connect: { ca: readFileSync(sandbox.caFile, 'utf8') },
    connections: options.inFlight,
  });
  let next = 0;
  let recorded = 0;
  let declined = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (next < jobs.length) {
          const card = jobs[next++]!;
          const exponent = currencyExponent(card.currency);
          const response = await request(
            new URL(`/_control/cards/${card.cardId}/transactions`, sandbox.baseUrl),
            {
              method: 'POST',
              dispatcher: agent,
              headers: {
                'content-type': 'application/json',
                'x-control-token': sandbox.controlToken as string,
              },
              body: JSON.stringify({
                type: 'PURCHASE',
                status: 'COMPLETED',
                amount: formatMinor(10 ** exponent, exponent),
                merchantName: 'Bench nightly',
              }),
            },
          );
          const body = (await response.body.json()) as { data?: { status: string } };
          if (response.statusCode !== 201)
            throw new Error(
              `control POST answered ${response.statusCode}: ${JSON.stringify(body)}`,
            );
          recorded += 1;
          if (body.data?.status === 'DECLINED') declined += 1;
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return {
    seconds: (performance.now() - started) / 1000,
    recorded,
    declined,
    cards: cards.length,
  };
}
