import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CARD_ORDER_PATHS,
  type CardOrderKind,
  type CardStatus,
  MerchantSession,
} from '../support/merchant-session.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** The one status each card order is allowed from (reference-model section 2). */
const ALLOWED_FROM: Readonly<Record<CardOrderKind, CardStatus>> = {
  FREEZE: 'ACTIVE',
  UNFREEZE: 'FROZEN',
  CANCEL: 'ACTIVE',
  DEPOSIT: 'ACTIVE',
  WITHDRAW: 'ACTIVE',
};

const KINDS = Object.keys(CARD_ORDER_PATHS) as CardOrderKind[];

/** Every status a card order can be refused from, with the orders refused there. */
const REFUSALS: readonly { status: CardStatus; kinds: CardOrderKind[] }[] = (
  [
    'PENDING',
    'ACTIVE',
    'FREEZING',
    'FROZEN',
    'UNFREEZING',
    'CANCELLING',
    'CANCELLED',
    'FAILED',
    'BLOCKED',
  ] as const
).map((status) => ({ status, kinds: KINDS.filter((kind) => ALLOWED_FROM[kind] !== status) }));

describe('card state transitions', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox();
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  describe('allowed transitions', () => {
    it('ISSUE shows a PENDING card with balance 0 at once and ACTIVE after processing', async () => {
      const offering = await m.everydayOffering();
      const placed = await m.issue(offering, m.minor(offering.minLoadAmount));
      const pending = await m.card(placed.cardId);
      expect(pending.status).toBe('PENDING');
      expect(m.minor(pending.balance)).toBe(0n);
      expect(pending.cardOfferingId).toBe(offering.id);
      await m.process(placed.orderNo);
      expect(await m.cardStatus(placed.cardId)).toBe('ACTIVE');
    });

    it('ISSUE processed with outcome failure leaves the card FAILED', async () => {
      const offering = await m.everydayOffering();
      const placed = await m.issue(offering, m.minor(offering.minLoadAmount));
      expect(await m.process(placed.orderNo, 'failure')).toBe('failure');
      expect(await m.cardStatus(placed.cardId)).toBe('FAILED');
    });

    it('FREEZE shows FREEZING at once and FROZEN after processing', async () => {
      const { cardId } = await m.activeCard();
      const freeze = await m.order('FREEZE', cardId);
      expect(await m.cardStatus(cardId)).toBe('FREEZING');
      await m.process(freeze.orderNo);
      expect(await m.cardStatus(cardId)).toBe('FROZEN');
    });

    it('UNFREEZE shows UNFREEZING at once and ACTIVE after processing', async () => {
      const cardId = await m.cardIn('FROZEN');
      const unfreeze = await m.order('UNFREEZE', cardId);
      expect(await m.cardStatus(cardId)).toBe('UNFREEZING');
      await m.process(unfreeze.orderNo);
      expect(await m.cardStatus(cardId)).toBe('ACTIVE');
    });

    it('a card can be frozen and unfrozen repeatedly', async () => {
      const { cardId } = await m.activeCard();
      for (let round = 0; round < 2; round++) {
        await m.completed('FREEZE', cardId);
        expect(await m.cardStatus(cardId)).toBe('FROZEN');
        await m.completed('UNFREEZE', cardId);
        expect(await m.cardStatus(cardId)).toBe('ACTIVE');
      }
    });

    it('CANCEL shows CANCELLING at once and CANCELLED after processing', async () => {
      const { cardId } = await m.activeCard();
      const cancel = await m.order('CANCEL', cardId);
      expect(await m.cardStatus(cardId)).toBe('CANCELLING');
      await m.process(cancel.orderNo);
      expect(await m.cardStatus(cardId)).toBe('CANCELLED');
    });

    it('DEPOSIT is accepted on an ACTIVE card, which stays ACTIVE', async () => {
      const { cardId } = await m.activeCard();
      await m.completed('DEPOSIT', cardId, 100n);
      expect(await m.cardStatus(cardId)).toBe('ACTIVE');
    });

    it('WITHDRAW is accepted on an ACTIVE card, which stays ACTIVE', async () => {
      const { cardId } = await m.activeCard();
      await m.completed('WITHDRAW', cardId, 1n);
      expect(await m.cardStatus(cardId)).toBe('ACTIVE');
    });

    it('a card unblocked by the service accepts orders again', async () => {
      const cardId = await m.cardIn('BLOCKED');
      const unblocked = await t.control.post(`/_control/cards/${cardId}/status`, {
        status: 'ACTIVE',
      });
      expect(unblocked.status).toBe(200);
      await m.completed('FREEZE', cardId);
      expect(await m.cardStatus(cardId)).toBe('FROZEN');
    });
  });

  describe.each(REFUSALS)('refused from $status', ({ status, kinds }) => {
    let cardId: string;
    beforeAll(async () => {
      cardId = await m.cardIn(status);
    });

    it.each(kinds)(`%s answers 409 INVALID_CARD_STATE and changes nothing`, async (kind) => {
      const cardBefore = await m.card(cardId);
      const merchantBefore = await m.balance();
      const amount = kind === 'DEPOSIT' || kind === 'WITHDRAW' ? m.text(1n) : undefined;
      const response = await m.postCardOrder(kind, cardId, amount);
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({
        statusCode: 409,
        error: 'Conflict',
        code: 'INVALID_CARD_STATE',
      });
      expect(response.headers['idempotent-replayed']).toBeUndefined();
      expect(await m.card(cardId)).toEqual(cardBefore);
      expect(await m.balance()).toBe(merchantBefore);
    });
  });
});
