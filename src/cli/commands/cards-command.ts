import type { Command } from 'commander';
import type { CardStatus } from '../../contract/index.js';
import type { CardOrder } from '../../journal/card-order.js';
import type { CliIo } from '../cli-io.js';
import { addMerchantOptions, type MerchantFlags } from '../merchant-options.js';
import { integerOption } from '../option-parsers.js';
import {
  amountOption,
  cardStatusOption,
  idOption,
  merchantOrderNoOption,
} from '../order-option-parsers.js';

/** The flags of a journaled card order. */
export interface OrderFlags extends MerchantFlags {
  readonly merchantOrderNo?: string;
}

/** The flags of an order that moves money. */
export interface AmountFlags extends OrderFlags {
  readonly amount: string;
}

/** The flags of `cardsync cards issue`. */
export interface IssueFlags extends AmountFlags {
  readonly offering: string;
  readonly holder?: string;
}

/** The flags of `cardsync cards list`. */
export interface ListFlags extends MerchantFlags {
  readonly status?: CardStatus;
  readonly page?: number;
  readonly limit?: number;
}

/** The flags of `cardsync cards sensitive`. */
export interface SensitiveFlags extends MerchantFlags {
  readonly reveal: boolean;
}

/**
 * `cardsync cards issue|deposit|withdraw|freeze|unfreeze|cancel|list|info|sensitive`: every card
 * operation of the interface. Orders go through the journal (docs/journal.md): written
 * SUBMITTED before the request leaves, settled ACCEPTED or REJECTED by the answer. The client,
 * the journal and the mirror are imported only when a subcommand runs.
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
    .action(async (flags: ListFlags) => {
      const { listCardsAction } = await import('../actions/card-actions.js');
      await listCardsAction(io, flags);
    });

  addMerchantOptions(cards.command('info').description("a card's details and balance"), {
    journal: false,
  })
    .argument('<cardId>', 'the card', idOption('cardId'))
    .action(async (cardId: string, flags: MerchantFlags) => {
      const { cardInfoAction } = await import('../actions/card-actions.js');
      await cardInfoAction(io, cardId, flags);
    });

  addMerchantOptions(
    cards
      .command('sensitive')
      .description("a card's number, CVV and expiry; number and CVV masked unless --reveal"),
    { journal: false },
  )
    .argument('<cardId>', 'the card', idOption('cardId'))
    .option('--reveal', 'show the full card number and CVV (never stored anywhere)', false)
    .action(async (cardId: string, flags: SensitiveFlags) => {
      const { sensitiveCardAction } = await import('../actions/card-actions.js');
      await sensitiveCardAction(io, cardId, flags);
    });
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

/** Journal and send one order; the journal and the client are imported only now. */
async function placeOrder(io: CliIo, flags: OrderFlags, order: CardOrder): Promise<void> {
  const { placeOrderAction } = await import('../actions/card-actions.js');
  await placeOrderAction(io, flags, order);
}
