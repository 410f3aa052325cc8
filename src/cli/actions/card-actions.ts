import { existsSync } from 'node:fs';
import { withoutCardSecrets } from '../../contract/card-secrets.js';
import type { CardOrder } from '../../journal/card-order.js';
import { OrderDesk } from '../../journal/order-desk.js';
import type { Mirror } from '../../mirror/open-mirror.js';
import { cardPageText, cardText, sensitiveText, showSensitive } from '../card-output.js';
import type { CliIo } from '../cli-io.js';
import type { ListFlags, OrderFlags, SensitiveFlags } from '../commands/cards-command.js';
import { openMirrorOrExit } from '../job-setup.js';
import { journalMerchant } from '../journal-merchant.js';
import type { MerchantFlags } from '../merchant-options.js';
import { checkAmountPrecision } from '../order-option-parsers.js';
import { acceptedLine, outcomeExit, outcomeJson } from '../order-outcome-output.js';
import { learnUpstreamClock, orderClock } from '../upstream-order-clock.js';
import { withSession } from '../with-session.js';

/**
 * The body of `cardsync cards list`: one page of cards. Printed as JSON, a card is printed without
 * a card number or CVV the upstream may have added to it: only `cards sensitive --reveal` shows
 * them.
 */
export async function listCardsAction(io: CliIo, flags: ListFlags): Promise<void> {
  await withSession(io, flags, 'cards list', async ({ api }) => {
    const page = await api.listCards(
      {
        ...(flags.status === undefined ? {} : { status: flags.status }),
        page: flags.page ?? 1,
        limit: flags.limit ?? 20,
      },
      { signal: io.signal },
    );
    io.stdout(
      flags.json
        ? `${JSON.stringify({ data: withoutCardSecrets(page.records), pagination: page.pagination, malformed: page.rejected.length })}\n`
        : cardPageText(page),
    );
  });
}

/** The body of `cardsync cards info`: one card's details and balance (as `cards list` prints it). */
export async function cardInfoAction(
  io: CliIo,
  cardId: string,
  flags: MerchantFlags,
): Promise<void> {
  await withSession(io, flags, `cards info ${cardId}`, async ({ api }) => {
    const card = await api.getCard(cardId, { signal: io.signal });
    io.stdout(flags.json ? `${JSON.stringify(withoutCardSecrets(card))}\n` : cardText(card));
  });
}

/** The body of `cardsync cards sensitive`: number, CVV and expiry, masked unless revealed. */
export async function sensitiveCardAction(
  io: CliIo,
  cardId: string,
  flags: SensitiveFlags,
): Promise<void> {
  await withSession(io, flags, `cards sensitive ${cardId}`, async ({ api }) => {
    const info = await api.getSensitiveCard(cardId, { signal: io.signal });
    const shown = showSensitive(cardId, info, flags.reveal);
    io.stdout(flags.json ? `${JSON.stringify(shown)}\n` : sensitiveText(shown));
  });
}

/**
 * Journal and send one order. The amount's precision is checked against the merchant's
 * currency before the mirror is created or anything is journaled; the mirror's write lock is
 * not taken (docs/journal.md says why).
 */
export async function placeOrderAction(
  io: CliIo,
  flags: OrderFlags,
  order: CardOrder,
): Promise<void> {
  await withSession(io, flags, `cards ${order.kind.toLowerCase()}`, async (session) => {
    const file = session.config.db;
    const origin = session.config.origins.db;
    let mirror: Mirror | undefined = existsSync(file) ? openMirrorOrExit(file, origin) : undefined;
    try {
      const who = await journalMerchant(session, mirror?.db, {
        needCurrency: 'amount' in order,
        signal: io.signal,
      });
      if ('amount' in order && who.currency !== undefined)
        checkAmountPrecision('--amount', order.amount, who.currency);
      await learnUpstreamClock(session.api, io.signal);
      mirror ??= openMirrorOrExit(file, origin);
      const desk = new OrderDesk({
        db: mirror.db,
        api: session.api,
        merchantId: who.merchantId,
        currency: who.currency,
        clock: orderClock(session.api),
        logger: session.logger,
      });
      const outcome = await desk.submit(order, {
        merchantOrderNo: flags.merchantOrderNo,
        signal: io.signal,
      });
      if (flags.json) io.stdout(`${JSON.stringify(outcomeJson(outcome, who.merchantId))}\n`);
      else if (outcome.state === 'ACCEPTED') io.stdout(acceptedLine(outcome));
      const exit = outcomeExit(outcome, session.merchant);
      if (exit) throw exit;
    } finally {
      await mirror?.close();
    }
  });
}
