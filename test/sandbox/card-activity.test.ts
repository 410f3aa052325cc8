import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantSession, type WireTransaction } from '../support/merchant-session.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** A transaction as the control surface answers it. */
interface PostedTransaction extends WireTransaction {
  readonly visibleAt: string;
  readonly posted: boolean;
}

describe('card activity from the network (reference-model section 4)', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox();
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  /** Post a transaction to a card through the control surface (expecting 201). */
  async function network(
    cardId: string,
    body: Record<string, unknown>,
  ): Promise<PostedTransaction> {
    const response = await t.control.post(`/_control/cards/${cardId}/transactions`, body);
    expect(response.status, response.text).toBe(201);
    return response.body.data;
  }

  /** Move a transaction to `status` (expecting 200). */
  async function move(transactionId: string, status: string): Promise<PostedTransaction> {
    const response = await t.control.post(`/_control/transactions/${transactionId}/status`, {
      status,
    });
    expect(response.status, response.text).toBe(200);
    return response.body.data;
  }

  /** The transaction as GET /transactions lists it, or undefined when it is not visible. */
  async function listed(cardId: string, transactionId: string) {
    return (await m.transactions({ cardId })).find((x) => x.transactionId === transactionId);
  }

  async function activeCard() {
    const { cardId } = await m.activeCard();
    return { cardId, balance: await m.cardBalance(cardId) };
  }

  it('a PENDING PURCHASE debits amount + fee at once, and COMPLETED then SETTLED keep that debit', async () => {
    const { cardId, balance } = await activeCard();
    const purchase = await network(cardId, {
      type: 'PURCHASE',
      status: 'PENDING',
      amount: '12.34',
      fee: '0.56',
    });
    expect(purchase.status).toBe('PENDING');
    const debited = balance - 12_34n - 56n;
    expect(await m.cardBalance(cardId)).toBe(debited);
    const seen = await listed(cardId, purchase.transactionId);
    expect(seen).toMatchObject({
      type: 'PURCHASE',
      status: 'PENDING',
      amount: '12.34',
      fee: '0.56',
    });
    await move(purchase.transactionId, 'COMPLETED');
    expect(await m.cardBalance(cardId)).toBe(debited);
    await move(purchase.transactionId, 'SETTLED');
    expect(await m.cardBalance(cardId)).toBe(debited);
    const settled = await listed(cardId, purchase.transactionId);
    expect(settled?.status).toBe('SETTLED');
    expect(settled?.createdAt).toBe(seen?.createdAt);
  });

  it('a PENDING PURCHASE moved to DECLINED gives amount + fee back', async () => {
    const { cardId, balance } = await activeCard();
    const purchase = await network(cardId, { type: 'PURCHASE', amount: '20.00', fee: '1.00' });
    expect(purchase.status).toBe('PENDING');
    expect(await m.cardBalance(cardId)).toBe(balance - 21_00n);
    await move(purchase.transactionId, 'DECLINED');
    expect(await m.cardBalance(cardId)).toBe(balance);
    expect((await listed(cardId, purchase.transactionId))?.status).toBe('DECLINED');
  });

  it('a PURCHASE declined at once moves nothing', async () => {
    const { cardId, balance } = await activeCard();
    const purchase = await network(cardId, {
      type: 'PURCHASE',
      status: 'DECLINED',
      amount: '5.00',
    });
    expect(purchase.status).toBe('DECLINED');
    expect(await m.cardBalance(cardId)).toBe(balance);
    expect((await listed(cardId, purchase.transactionId))?.status).toBe('DECLINED');
  });

  it('a REFUND of a purchase credits amount − fee only once COMPLETED, and SETTLED keeps it', async () => {
    const { cardId, balance } = await activeCard();
    const purchase = await network(cardId, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '30.00',
    });
    const afterPurchase = balance - 30_00n;
    expect(await m.cardBalance(cardId)).toBe(afterPurchase);
    const refund = await network(cardId, {
      type: 'REFUND',
      status: 'PENDING',
      amount: '10.00',
      fee: '0.30',
      tradeNo: purchase.tradeNo,
    });
    expect(refund.status).toBe('PENDING');
    expect(await m.cardBalance(cardId)).toBe(afterPurchase);
    await move(refund.transactionId, 'COMPLETED');
    expect(await m.cardBalance(cardId)).toBe(afterPurchase + 10_00n - 30n);
    await move(refund.transactionId, 'SETTLED');
    expect(await m.cardBalance(cardId)).toBe(afterPurchase + 10_00n - 30n);
    expect(await listed(cardId, refund.transactionId)).toMatchObject({
      type: 'REFUND',
      status: 'SETTLED',
      tradeNo: purchase.tradeNo,
    });
  });

  it('a REVERSAL with the tradeNo of a purchase is COMPLETED at once and credits amount − fee', async () => {
    const { cardId, balance } = await activeCard();
    const purchase = await network(cardId, { type: 'PURCHASE', amount: '15.00', fee: '0.15' });
    const reversal = await network(cardId, {
      type: 'REVERSAL',
      amount: '15.00',
      fee: '0.05',
      tradeNo: purchase.tradeNo,
    });
    expect(reversal.status).toBe('COMPLETED');
    expect(await m.cardBalance(cardId)).toBe(balance - 15_15n + 15_00n - 5n);
    await move(reversal.transactionId, 'SETTLED');
    expect(await m.cardBalance(cardId)).toBe(balance - 15_15n + 15_00n - 5n);
  });

  it.each([
    ['REFUND', undefined],
    ['REVERSAL', undefined],
    ['REFUND', 'trd_unknown'],
    ['REVERSAL', 'trd_unknown'],
  ])(
    'a %s with tradeNo %s names no purchase and answers 400, moving nothing',
    async (type, tradeNo) => {
      const { cardId, balance } = await activeCard();
      const before = await m.transactions({ cardId });
      const response = await t.control.post(`/_control/cards/${cardId}/transactions`, {
        type,
        status: 'COMPLETED',
        amount: '1.00',
        ...(tradeNo ? { tradeNo } : {}),
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(await m.cardBalance(cardId)).toBe(balance);
      expect(await m.transactions({ cardId })).toEqual(before);
    },
  );

  it.each([
    ['0.00', '0.25'],
    ['5.00', '0.25'],
  ])('a VERIFICATION of amount %s debits only its fee %s', async (amount, fee) => {
    const { cardId, balance } = await activeCard();
    const verification = await network(cardId, { type: 'VERIFICATION', amount, fee });
    expect(verification.status).toBe('COMPLETED');
    expect(await m.cardBalance(cardId)).toBe(balance - m.minor(fee));
  });

  it.each(['FROZEN', 'BLOCKED'] as const)(
    'a PURCHASE on a %s card is recorded DECLINED by the network and moves nothing',
    async (status) => {
      const cardId = await m.cardIn(status);
      const balance = await m.cardBalance(cardId);
      const purchase = await network(cardId, { type: 'PURCHASE', amount: '3.00', fee: '0.10' });
      expect(purchase.status).toBe('DECLINED');
      expect(await m.cardBalance(cardId)).toBe(balance);
      expect((await listed(cardId, purchase.transactionId))?.status).toBe('DECLINED');
    },
  );

  it('a PURCHASE beyond the card balance is recorded DECLINED and moves nothing', async () => {
    const { cardId, balance } = await activeCard();
    const purchase = await network(cardId, { type: 'PURCHASE', amount: m.text(balance + 1n) });
    expect(purchase.status).toBe('DECLINED');
    expect(await m.cardBalance(cardId)).toBe(balance);
  });

  it('refuses a forced transaction that would take the card past 2^53 - 1 minor units, changing nothing', async () => {
    const { cardId, balance } = await activeCard();
    const largest = m.text(BigInt(Number.MAX_SAFE_INTEGER));
    const count = async () => (await m.transactions({ cardId })).length;
    const before = await count();
    const refused = async (body: Record<string, unknown>, names: string) => {
      const response = await t.control.post(`/_control/cards/${cardId}/transactions`, body);
      expect(response.status, response.text).toBe(400);
      expect(response.text).toContain(names);
    };
    await refused({ type: 'REFUND', amount: largest, force: true }, 'holds past 9007199254740991');
    await refused(
      { type: 'REVERSAL', amount: largest, force: true },
      'holds past 9007199254740991',
    );
    // Amount and fee together, each within bounds.
    await refused(
      { type: 'PURCHASE', amount: largest, fee: m.text(balance + 1n), force: true },
      'below -9007199254740991',
    );
    expect(await m.cardBalance(cardId)).toBe(balance);
    expect(await count()).toBe(before);
    // Within reach, a forced purchase still overdraws the card, as a faulty upstream would; from
    // there, the largest FEE is one minor unit too far.
    const overdraft = await network(cardId, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: m.text(balance + 1n),
      force: true,
    });
    expect(overdraft.status).toBe('COMPLETED');
    expect(await m.cardBalance(cardId)).toBe(-1n);
    await refused({ type: 'FEE', amount: largest, force: true }, 'below -9007199254740991');
    expect(await m.cardBalance(cardId)).toBe(-1n);
    expect(await count()).toBe(before + 1);
  });

  it.each([
    ['PURCHASE', ['COMPLETED', 'SETTLED'], 'PENDING'],
    ['PURCHASE', ['COMPLETED', 'SETTLED'], 'COMPLETED'],
    ['PURCHASE', ['COMPLETED', 'SETTLED'], 'DECLINED'],
    ['PURCHASE', ['COMPLETED'], 'PENDING'],
    ['PURCHASE', ['COMPLETED'], 'DECLINED'],
    ['PURCHASE', ['DECLINED'], 'COMPLETED'],
    ['PURCHASE', ['DECLINED'], 'PENDING'],
    ['REFUND', ['COMPLETED'], 'PENDING'],
    ['REFUND', ['COMPLETED', 'SETTLED'], 'COMPLETED'],
    ['REVERSAL', [], 'PENDING'],
  ] as const)(
    'a %s moved through %j cannot move to %s: 400, nothing moves',
    async (type, path, refused) => {
      const { cardId } = await activeCard();
      const purchase = await network(cardId, { type: 'PURCHASE', amount: '8.00', fee: '0.20' });
      const subject =
        type === 'PURCHASE'
          ? purchase
          : await network(cardId, {
              type,
              status: type === 'REFUND' ? 'PENDING' : 'COMPLETED',
              amount: '2.00',
              tradeNo: purchase.tradeNo,
            });
      for (const status of path) await move(subject.transactionId, status);
      const balance = await m.cardBalance(cardId);
      const shown = await listed(cardId, subject.transactionId);
      const response = await t.control.post(
        `/_control/transactions/${subject.transactionId}/status`,
        {
          status: refused,
        },
      );
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(await m.cardBalance(cardId)).toBe(balance);
      expect(await listed(cardId, subject.transactionId)).toEqual(shown);
    },
  );

  describe('late posting', () => {
    const HOUR = 3_600_000;

    async function serviceNow(): Promise<number> {
      const clock = await t.control.get('/_control/clock');
      expect(clock.status).toBe(200);
      return Date.parse(clock.body.now);
    }

    async function advance(ms: number): Promise<void> {
      const response = await t.control.post('/_control/clock', { advanceMs: ms });
      expect(response.status).toBe(200);
    }

    it('a purchase visible two hours after its createdAt is invisible and moves nothing until the service clock passes it, then appears with its original createdAt', async () => {
      const { cardId, balance } = await activeCard();
      const createdAt = new Date(await serviceNow()).toISOString();
      const visibleAt = new Date(Date.parse(createdAt) + 2 * HOUR).toISOString();
      const late = await network(cardId, {
        type: 'PURCHASE',
        status: 'COMPLETED',
        amount: '4.00',
        fee: '0.40',
        createdAt,
        visibleAt,
      });
      expect(late.posted).toBe(false);
      expect(await listed(cardId, late.transactionId)).toBeUndefined();
      expect(await m.cardBalance(cardId)).toBe(balance);

      await advance(HOUR);
      expect(await listed(cardId, late.transactionId)).toBeUndefined();
      expect(await m.cardBalance(cardId)).toBe(balance);

      await advance(HOUR + 1_000);
      const shown = await listed(cardId, late.transactionId);
      expect(shown).toMatchObject({ status: 'COMPLETED', amount: '4.00', fee: '0.40', createdAt });
      expect(await m.cardBalance(cardId)).toBe(balance - 4_40n);
      const inRange = await m.transactions({ cardId, startTime: createdAt, endTime: createdAt });
      expect(inRange.map((x) => x.transactionId)).toEqual([late.transactionId]);
    });

    it('a status change of a late posting moves nothing until it is posted, then its final effect once', async () => {
      const { cardId, balance } = await activeCard();
      const createdAt = new Date(await serviceNow()).toISOString();
      const late = await network(cardId, {
        type: 'PURCHASE',
        status: 'PENDING',
        amount: '6.00',
        createdAt,
        visibleAt: new Date(Date.parse(createdAt) + HOUR).toISOString(),
      });
      await move(late.transactionId, 'DECLINED');
      expect(await m.cardBalance(cardId)).toBe(balance);
      const second = await network(cardId, {
        type: 'PURCHASE',
        status: 'PENDING',
        amount: '7.00',
        createdAt,
        visibleAt: new Date(Date.parse(createdAt) + HOUR).toISOString(),
      });
      await move(second.transactionId, 'COMPLETED');
      expect(await m.cardBalance(cardId)).toBe(balance);
      await advance(HOUR + 1_000);
      expect((await listed(cardId, late.transactionId))?.status).toBe('DECLINED');
      expect((await listed(cardId, second.transactionId))?.status).toBe('COMPLETED');
      expect(await m.cardBalance(cardId)).toBe(balance - 7_00n);
    });
  });
});
