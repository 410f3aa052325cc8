import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { CardStatus } from '../../contract/index.js';
import type { CardOrder } from '../../journal/card-order.js';
import { OrderDesk } from '../../journal/order-desk.js';
import type { Mirror } from '../../mirror/open-mirror.js';
import { cardPageText, cardText, sensitiveText, showSensitive } from '../card-output.js';
import type { CliIo } from '../cli-io.js';
import { commandExit } from '../command-errors.js';
import { openMirrorOrExit } from '../job-setup.js';
import { journalMerchant } from '../journal-merchant.js';
import { addMerchantOptions, type MerchantFlags } from '../merchant-options.js';
import { type MerchantSession, openMerchantSession } from '../merchant-session.js';
import { integerOption } from '../option-parsers.js';
import {
  amountOption,
  cardStatusOption,
  checkAmountPrecision,
  idOption,
  merchantOrderNoOption,
} from '../order-option-parsers.js';
import { acceptedLine, outcomeExit, outcomeJson } from '../order-outcome-output.js';

interface OrderFlags extends MerchantFlags {
  readonly merchantOrderNo?: string;
}

interface AmountFlags extends OrderFlags {
  readonly amount: string;
}

interface IssueFlags extends AmountFlags {
  readonly offering: string;
  readonly holder?: string;
}

interface ListFlags extends MerchantFlags {
  readonly status?: CardStatus;
  readonly page?: number;
  readonly limit?: number;
}

interface SensitiveFlags extends MerchantFlags {
  readonly reveal: boolean;
}

/**
 * `cardsync cards issue|deposit|withdraw|freeze|unfreeze|cancel|list|info|sensitive`: every card
 * operation of the interface. Orders go through the journal (docs/journal.md): written
 * SUBMITTED before the request leaves, settled ACCEPTED or REJECTED by the answer.
 */
export function registerCardsCommand(program: Command, io: CliIo): void {
  const cards = program
    .command('cards')
    .description('card operations of the interface; every order is journaled in the mirror');

  orderCommand(cards, 'issue', 'issue a card from an offering with an initial load')
    .requiredOption('--offering <id>', 'the offering to issue from', idOption('--offering'))
    .requiredOption('--amount <decimal>', 'the initial load, e.g. 50.00', amountOption('--amount'))
    .option(
      '--holder <id>',
      'the card holder, for offerings that require one',
      idOption('--holder'),
    )
    .action((flags: IssueFlags) =>
      placeOrder(io, flags, {
        kind: 'ISSUE',
        offeringId: flags.offering,
        amount: flags.amount,
        ...(flags.holder === undefined ? {} : { holderId: flags.holder }),
      }),
    );
  for (const [name, kind, what] of [
    ['deposit', 'DEPOSIT', 'deposit funds from the merchant balance to a card'],
    ['withdraw', 'WITHDRAW', 'withdraw funds from a card to the merchant balance'],
  ] as const)
    orderCommand(cards, name, what)
      .argument('<cardId>', 'the card', idOption('cardId'))
      .requiredOption('--amount <decimal>', 'the amount, e.g. 25.00', amountOption('--amount'))
      .action((cardId: string, flags: AmountFlags) =>
        placeOrder(io, flags, { kind, cardId, amount: flags.amount }),
      );
  for (const [name, kind, what] of [
    ['freeze', 'FREEZE', 'freeze an ACTIVE card'],
    ['unfreeze', 'UNFREEZE', 'unfreeze a FROZEN card'],
    ['cancel', 'CANCEL', 'request the cancellation of an ACTIVE card'],
  ] as const)
    orderCommand(cards, name, what)
      .argument('<cardId>', 'the card', idOption('cardId'))
      .action((cardId: string, flags: OrderFlags) => placeOrder(io, flags, { kind, cardId }));

  addMerchantOptions(cards.command('list').description('list the cards, a page at a time'), {
    journal: false,
  })
    .option('--status <status>', 'only cards in this status', cardStatusOption('--status'))
    .option('--page <n>', 'page number (default 1)', integerOption('--page', 1, 10_000_000))
    .option(
      '--limit <n>',
      'cards per page, up to 100 (default 20)',
      integerOption('--limit', 1, 100),
    )
    .action((flags: ListFlags) =>
      withSession(io, flags, 'cards list', async ({ api }) => {
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
            ? `${JSON.stringify({ data: page.records, pagination: page.pagination, malformed: page.rejected.length })}\n`
            : cardPageText(page),
        );
      }),
    );

  addMerchantOptions(cards.command('info').description("a card's details and balance"), {
    journal: false,
  })
    .argument('<cardId>', 'the card', idOption('cardId'))
    .action((cardId: string, flags: MerchantFlags) =>
      withSession(io, flags, `cards info ${cardId}`, async ({ api }) => {
        const card = await api.getCard(cardId, { signal: io.signal });
        io.stdout(flags.json ? `${JSON.stringify(card)}\n` : cardText(card));
      }),
    );

  addMerchantOptions(
    cards
      .command('sensitive')
      .description("a card's number, CVV and expiry; number and CVV masked unless --reveal"),
    { journal: false },
  )
    .argument('<cardId>', 'the card', idOption('cardId'))
    .option('--reveal', 'show the full card number and CVV (never stored anywhere)', false)
    .action((cardId: string, flags: SensitiveFlags) =>
      withSession(io, flags, `cards sensitive ${cardId}`, async ({ api }) => {
        const info = await api.getSensitiveCard(cardId, { signal: io.signal });
        const shown = showSensitive(cardId, info, flags.reveal);
        io.stdout(flags.json ? `${JSON.stringify(shown)}\n` : sensitiveText(shown));
      }),
    );
}

function orderCommand(cards: Command, name: string, description: string): Command {
  return addMerchantOptions(cards.command(name).description(`${description} (journaled)`), {
    journal: true,
  }).option(
    '--merchant-order-no <ref>',
    'your reference for the order (generated when absent); resending one settles or replays it',
    merchantOrderNoOption('--merchant-order-no'),
  );
}

/** Open the merchant's client, run `work`, and turn upstream failures into exit codes. */
export async function withSession(
  io: CliIo,
  flags: MerchantFlags,
  what: string,
  work: (session: MerchantSession) => Promise<void>,
): Promise<void> {
  const session = await openMerchantSession(io, flags);
  try {
    await work(session);
  } catch (error) {
    throw commandExit(error, what, session.merchant.name);
  } finally {
    await session.close();
  }
}

/**
 * Journal and send one order. The amount's precision is checked against the merchant's
 * currency before the mirror is created or anything is journaled; the mirror's write lock is
 * not taken (docs/journal.md says why).
 */
async function placeOrder(io: CliIo, flags: OrderFlags, order: CardOrder): Promise<void> {
  await withSession(io, flags, `cards ${order.kind.toLowerCase()}`, async (session) => {
    const file = session.config.db;
    let mirror: Mirror | undefined = existsSync(file) ? openMirrorOrExit(file) : undefined;
    try {
      const who = await journalMerchant(session, mirror?.db, {
        needCurrency: 'amount' in order,
        signal: io.signal,
      });
      if ('amount' in order && who.currency !== undefined)
        checkAmountPrecision('--amount', order.amount, who.currency);
      mirror ??= openMirrorOrExit(file);
      const desk = new OrderDesk({
        db: mirror.db,
        api: session.api,
        merchantId: who.merchantId,
        currency: who.currency,
        logger: session.logger,
      });
      const outcome = await desk.submit(order, {
        merchantOrderNo: flags.merchantOrderNo,
        signal: io.signal,
      });
      if (flags.json) io.stdout(`${JSON.stringify(outcomeJson(outcome, who.merchantId))}\n`);
      else if (outcome.state === 'ACCEPTED') io.stdout(acceptedLine(outcome));
      const exit = outcomeExit(outcome, session.merchant.name);
      if (exit) throw exit;
    } finally {
      await mirror?.close();
    }
  });
}
