import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from './api-client.js';
import { exponentOf, minorOf, textOf } from './decimal-text.js';
import { orderNo, type TestSandbox } from './test-sandbox.js';

/** A card offering as GET /merchants/offerings shows it. */
export interface WireOffering {
  readonly id: string;
  readonly name: string;
  readonly currency: string;
  readonly minLoadAmount: string;
  readonly maxLoadAmount: string;
  readonly issuanceFee: string;
  readonly depositFeePercent: string;
  readonly requiresHolder: boolean;
}

/** A card as GET /cards/info shows it. */
export interface WireCard {
  readonly cardId: string;
  readonly cardOfferingId: string;
  readonly status: string;
  readonly balance: string;
  readonly currency: string;
  readonly createdAt: string;
}

/** A transaction as GET /transactions shows it. */
export interface WireTransaction {
  readonly transactionId: string;
  readonly cardId: string;
  readonly tradeNo: string;
  readonly type: string;
  readonly status: string;
  readonly amount: string;
  readonly currency: string;
  readonly fee: string;
  readonly createdAt: string;
}

/** The card operations that take a `cardId`, by the path they are posted to. */
export const CARD_ORDER_PATHS = {
  FREEZE: '/cards/freeze',
  UNFREEZE: '/cards/unfreeze',
  CANCEL: '/cards/cancel',
  DEPOSIT: '/cards/deposit',
  WITHDRAW: '/cards/withdraw',
} as const;

/** A card operation that takes a `cardId`. */
export type CardOrderKind = keyof typeof CARD_ORDER_PATHS;

/** The card statuses of the interface. */
export const CARD_STATUSES = [
  'PENDING',
  'ACTIVE',
  'FREEZING',
  'FROZEN',
  'UNFREEZING',
  'CANCELLING',
  'CANCELLED',
  'FAILED',
  'BLOCKED',
] as const;

/** A card status of the interface. */
export type CardStatus = (typeof CARD_STATUSES)[number];

/** An order the sandbox accepted, with the card it acts on. */
export interface PlacedOrder {
  readonly orderNo: string;
  readonly merchantOrderNo: string;
  readonly cardId: string;
}

/**
 * One merchant's view of a test sandbox: its API client, the control client, and the reads and
 * orders the tests repeat, with amounts as BigInt minor units of the merchant's currency.
 */
export class MerchantSession {
  readonly api: ApiClient;
  readonly control: ApiClient;
  readonly merchantId: string;
  readonly currency: string;
  readonly exponent: number;

  constructor(t: TestSandbox, index: number) {
    const access = t.sandbox.merchants[index];
    const api = t.merchants[index];
    if (!access || !api) throw new Error(`the sandbox has no merchant ${index}`);
    this.api = api;
    this.control = t.control;
    this.merchantId = access.merchantId;
    this.currency = access.currency;
    this.exponent = exponentOf(access.currency);
  }

  /** Minor units of a response amount in this merchant's currency. */
  minor(text: string): bigint {
    return minorOf(text, this.exponent);
  }

  /** Request text for minor units in this merchant's currency. */
  text(minor: bigint): string {
    return textOf(minor, this.exponent);
  }

  async offerings(): Promise<WireOffering[]> {
    const response = await this.api.get<{ data: WireOffering[] }>('/merchants/offerings');
    expect(response.status).toBe(200);
    return response.body.data;
  }

  /** The first offering that `accepts`; fails the test when there is none. */
  async offering(accepts: (o: WireOffering) => boolean): Promise<WireOffering> {
    const found = (await this.offerings()).find(accepts);
    if (!found) throw new Error(`merchant ${this.merchantId} has no such offering`);
    return found;
  }

  /** The merchant balance in minor units. */
  async balance(): Promise<bigint> {
    const response = await this.api.get('/merchants/balance');
    expect(response.status).toBe(200);
    expect(response.body.data.currency).toBe(this.currency);
    return this.minor(response.body.data.balance);
  }

  async card(cardId: string): Promise<WireCard> {
    const response = await this.api.get<{ data: WireCard }>('/cards/info', { query: { cardId } });
    expect(response.status).toBe(200);
    return response.body.data;
  }

  async cardStatus(cardId: string): Promise<string> {
    return (await this.card(cardId)).status;
  }

  async cardBalance(cardId: string): Promise<bigint> {
    return this.minor((await this.card(cardId)).balance);
  }

  /** Every card of the merchant, all pages read. */
  async allCards(): Promise<WireCard[]> {
    const cards: WireCard[] = [];
    for (let page = 1; ; page++) {
      const response = await this.api.get('/cards', { query: { page, limit: 100 } });
      expect(response.status).toBe(200);
      cards.push(...response.body.data);
      if (page >= response.body.pagination.totalPages) return cards;
    }
  }

  /** Every visible transaction matching `query`, all pages read. */
  async transactions(query: Record<string, string> = {}): Promise<WireTransaction[]> {
    const found: WireTransaction[] = [];
    for (let page = 1; ; page++) {
      const response = await this.api.get('/transactions', {
        query: { ...query, page, limit: 100 },
      });
      expect(response.status).toBe(200);
      found.push(...response.body.data);
      if (page >= response.body.pagination.totalPages) return found;
    }
  }

  /** The transactions whose `tradeNo` is `orderNo` (an order's FEE record). */
  async recordsOf(orderNo: string): Promise<WireTransaction[]> {
    return (await this.transactions()).filter((t) => t.tradeNo === orderNo);
  }

  /** The one FEE record of an order; fails the test unless there is exactly one. */
  async feeOf(orderNo: string): Promise<WireTransaction> {
    const records = await this.recordsOf(orderNo);
    expect(records).toHaveLength(1);
    const [fee] = records;
    if (!fee) throw new Error('unreachable');
    expect(fee.type).toBe('FEE');
    return fee;
  }

  /** POST /cards as is. */
  async postIssue(body: Record<string, unknown>): Promise<ApiResponse> {
    return this.api.post('/cards', body);
  }

  /** Issue a card (expecting 201) and find the new card by comparing the card list before and after. */
  async issue(
    offering: WireOffering,
    amount: bigint,
    extra: { holderId?: string; merchantOrderNo?: string } = {},
  ): Promise<PlacedOrder> {
    const before = new Set((await this.allCards()).map((c) => c.cardId));
    const merchantOrderNo = extra.merchantOrderNo ?? orderNo('issue');
    const response = await this.postIssue({
      offeringId: offering.id,
      amount: this.text(amount),
      merchantOrderNo,
      ...(extra.holderId ? { holderId: extra.holderId } : {}),
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.merchantOrderNo).toBe(merchantOrderNo);
    const created = (await this.allCards()).filter((c) => !before.has(c.cardId));
    expect(created).toHaveLength(1);
    const [card] = created;
    if (!card) throw new Error('unreachable');
    return { orderNo: response.body.data.orderNo, merchantOrderNo, cardId: card.cardId };
  }

  /** POST a card order as is. */
  async postCardOrder(
    kind: CardOrderKind,
    cardId: string,
    amount?: string,
    merchantOrderNo: string = orderNo(kind.toLowerCase()),
  ): Promise<ApiResponse> {
    return this.api.post(CARD_ORDER_PATHS[kind], {
      cardId,
      merchantOrderNo,
      ...(amount === undefined ? {} : { amount }),
    });
  }

  /** Place a card order (expecting 201). */
  async order(kind: CardOrderKind, cardId: string, amount?: bigint): Promise<PlacedOrder> {
    const merchantOrderNo = orderNo(kind.toLowerCase());
    const response = await this.postCardOrder(
      kind,
      cardId,
      amount === undefined ? undefined : this.text(amount),
      merchantOrderNo,
    );
    expect(response.status, response.text).toBe(201);
    return { orderNo: response.body.data.orderNo, merchantOrderNo, cardId };
  }

  /** Process exactly one pending order through the control surface. */
  async process(orderNo: string, outcome?: 'success' | 'failure'): Promise<string> {
    const response = await this.control.post('/_control/orders/process', {
      orderNo,
      ...(outcome ? { outcome } : {}),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.processed).toHaveLength(1);
    expect(response.body.processed[0].orderNo).toBe(orderNo);
    return response.body.processed[0].outcome;
  }

  /** Place a card order and process it with `outcome`. */
  async completed(
    kind: CardOrderKind,
    cardId: string,
    amount?: bigint,
    outcome?: 'success' | 'failure',
  ): Promise<PlacedOrder> {
    const placed = await this.order(kind, cardId, amount);
    await this.process(placed.orderNo, outcome);
    return placed;
  }

  /** The first offering without a holder requirement and with a non-zero issuance fee. */
  async everydayOffering(): Promise<WireOffering> {
    return this.offering((o) => !o.requiresHolder && this.minor(o.issuanceFee) > 0n);
  }

  /** A freshly issued, processed ACTIVE card loaded with `amount` (the offering's minimum × 10 by default). */
  async activeCard(offering?: WireOffering, amount?: bigint): Promise<PlacedOrder> {
    const chosen = offering ?? (await this.everydayOffering());
    const placed = await this.issue(chosen, amount ?? this.minor(chosen.minLoadAmount) * 10n);
    await this.process(placed.orderNo, 'success');
    expect(await this.cardStatus(placed.cardId)).toBe('ACTIVE');
    return placed;
  }

  /**
   * A new card brought to `status` through the orders of reference-model section 2 (BLOCKED
   * through the control surface). Orders that leave an intermediate status stay pending.
   */
  async cardIn(status: CardStatus): Promise<string> {
    if (status === 'PENDING' || status === 'FAILED') {
      const offering = await this.everydayOffering();
      const placed = await this.issue(offering, this.minor(offering.minLoadAmount));
      if (status === 'FAILED') await this.process(placed.orderNo, 'failure');
      expect(await this.cardStatus(placed.cardId)).toBe(status);
      return placed.cardId;
    }
    const { cardId } = await this.activeCard();
    switch (status) {
      case 'ACTIVE':
        break;
      case 'FREEZING':
        await this.order('FREEZE', cardId);
        break;
      case 'FROZEN':
        await this.completed('FREEZE', cardId);
        break;
      case 'UNFREEZING':
        await this.completed('FREEZE', cardId);
        await this.order('UNFREEZE', cardId);
        break;
      case 'CANCELLING':
        await this.order('CANCEL', cardId);
        break;
      case 'CANCELLED':
        await this.completed('CANCEL', cardId);
        break;
      case 'BLOCKED':
        await this.block(cardId);
        break;
    }
    expect(await this.cardStatus(cardId)).toBe(status);
    return cardId;
  }

  /** Set a card's status through the control surface (the service's risk decision). */
  async block(cardId: string): Promise<void> {
    const response = await this.control.post(`/_control/cards/${cardId}/status`, {
      status: 'BLOCKED',
    });
    expect(response.status, response.text).toBe(200);
  }
}
