import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/contract/index.js';
import type { ApiClient } from '../support/api-client.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import {
  activeCard,
  allTransactions,
  expectValidationFailure,
  holderFreeOffering,
  type Issued,
  newestFirst,
  type Page,
  postTransaction,
  type TransactionInput,
} from '../support/wire-fixtures.js';

const HOUR = 3_600_000;
/** Transactions of the bulk merchant posted through the control surface. */
const BULK_POSTED = 120;

type Model = Pick<Transaction, 'transactionId' | 'cardId' | 'type' | 'status' | 'createdAt'>;

const byNewest = newestFirst<Model>(
  (m) => m.createdAt,
  (m) => m.transactionId,
);

describe('GET /transactions', () => {
  let t: TestSandbox;
  let api: ApiClient;
  let bulkApi: ApiClient;
  let first: Issued;
  let second: Issued;
  /** Start of the posted history: ten days before the service clock's start, on a whole second. */
  let base: number;
  /** createdAt, as the service wrote it, of the posting made at `base + hours * HOUR`. */
  const at = (hours: number) => new Date(base + hours * HOUR).toISOString();
  /** What the merchant's transaction history must be: built from what the test itself posted. */
  const model: Model[] = [];
  /** The bulk merchant's posted transactions, in posting order (oldest first). */
  const bulkPosted: string[] = [];
  let bulkFee: Transaction;

  beforeAll(async () => {
    t = await startTestSandbox();
    api = t.merchants[0] as ApiClient;
    bulkApi = t.merchants[1] as ApiClient;
    base = Math.floor((Date.now() - 10 * 24 * HOUR) / 1000) * 1000;

    const offering = await holderFreeOffering(api);
    const load = offering.maxLoadAmount;
    first = await activeCard(api, t.control, offering, load);
    second = await activeCard(api, t.control, offering, load);

    const plan: { card: Issued; hours: number; input: TransactionInput; settle?: boolean }[] = [
      { card: first, hours: 1, input: { type: 'PURCHASE', status: 'PENDING', amount: '5.00' } },
      {
        card: first,
        hours: 2,
        input: { type: 'PURCHASE', status: 'COMPLETED', amount: '7.00', tradeNo: 'trd_p2' },
        settle: true,
      },
      { card: first, hours: 3, input: { type: 'PURCHASE', status: 'DECLINED', amount: '9.00' } },
      {
        card: first,
        hours: 4,
        input: { type: 'REFUND', status: 'COMPLETED', amount: '2.00', tradeNo: 'trd_p2' },
      },
      {
        card: first,
        hours: 5,
        input: { type: 'VERIFICATION', status: 'COMPLETED', amount: '0.00' },
      },
      {
        card: second,
        hours: 6,
        input: { type: 'PURCHASE', status: 'COMPLETED', amount: '3.00', tradeNo: 'trd_p6' },
        settle: true,
      },
      {
        card: second,
        hours: 7,
        input: { type: 'PURCHASE', status: 'PENDING', amount: '4.00', tradeNo: 'trd_p7' },
      },
      {
        card: second,
        hours: 8,
        input: { type: 'VERIFICATION', status: 'DECLINED', amount: '0.00' },
      },
      {
        card: second,
        hours: 9,
        input: { type: 'REVERSAL', status: 'COMPLETED', amount: '4.00', tradeNo: 'trd_p7' },
      },
      { card: second, hours: 10, input: { type: 'FEE', status: 'PENDING', amount: '0.50' } },
      // Three at the very same millisecond: their order is decided by transactionId alone.
      { card: first, hours: 11, input: { type: 'PURCHASE', status: 'COMPLETED', amount: '1.00' } },
      { card: second, hours: 11, input: { type: 'PURCHASE', status: 'COMPLETED', amount: '1.00' } },
      { card: first, hours: 11, input: { type: 'PURCHASE', status: 'COMPLETED', amount: '1.00' } },
    ];
    for (const step of plan) {
      const posted = await postTransaction(t.control, step.card.cardId, {
        ...step.input,
        createdAt: at(step.hours),
      });
      // The model holds what the test asked for; the service must have taken it as asked.
      expect(posted.status).toBe(step.input.status);
      expect(posted.createdAt).toBe(at(step.hours));
      let status = step.input.status ?? 'COMPLETED';
      if (step.settle) {
        const moved = await t.control.post(
          `/_control/transactions/${posted.transactionId}/status`,
          {
            status: 'SETTLED',
          },
        );
        expect(moved.status, moved.text).toBe(200);
        status = 'SETTLED';
      }
      model.push({
        transactionId: posted.transactionId,
        cardId: step.card.cardId,
        type: step.input.type,
        status,
        createdAt: posted.createdAt,
      });
    }
    // Each processed issuance left one COMPLETED FEE record named after its order (section 3).
    const everything = await allTransactions(api);
    for (const card of [first, second]) {
      const fees = everything.filter((x) => x.tradeNo === card.orderNo);
      expect(fees).toHaveLength(1);
      const fee = fees[0] as Transaction;
      expect(fee).toMatchObject({ type: 'FEE', status: 'COMPLETED', cardId: card.cardId });
      model.push(fee);
    }

    const bulkCard = await activeCard(bulkApi, t.control, await holderFreeOffering(bulkApi));
    for (let i = 0; i < BULK_POSTED; i += 30) {
      const batch = await Promise.all(
        Array.from({ length: 30 }, (_, j) =>
          postTransaction(t.control, bulkCard.cardId, {
            type: 'VERIFICATION',
            status: 'COMPLETED',
            amount: '0.00',
            createdAt: new Date(base + (i + j) * 1000).toISOString(),
          }),
        ),
      );
      bulkPosted.push(...batch.map((x) => x.transactionId));
    }
    const bulkFees = (await allTransactions(bulkApi)).filter((x) => x.tradeNo === bulkCard.orderNo);
    expect(bulkFees).toHaveLength(1);
    bulkFee = bulkFees[0] as Transaction;
  });
  afterAll(async () => t.close());

  /** The ids GET /transactions answers for `query` (one page of up to 100), with its total. */
  async function listed(query: Record<string, string>) {
    const response = await api.get<Page<Transaction>>('/transactions', {
      query: { ...query, limit: '100' },
    });
    expect(response.status, response.text).toBe(200);
    return {
      ids: response.body.data.map((x) => x.transactionId),
      total: response.body.pagination.total,
      data: response.body.data,
    };
  }

  /** Assert that `query` answers exactly the model's transactions that `keep` accepts, newest first. */
  async function expectSelection(query: Record<string, string>, keep: (m: Model) => boolean) {
    const expected = model.filter(keep).sort(byNewest);
    const answer = await listed(query);
    expect(answer.ids, JSON.stringify(query)).toEqual(expected.map((m) => m.transactionId));
    expect(answer.total).toBe(expected.length);
    return expected.length;
  }

  describe('history and order', () => {
    it('lists exactly what was posted plus one FEE per issuance, newest first', async () => {
      expect(await expectSelection({}, () => true)).toBe(model.length);
    });

    it('orders transactions at the same createdAt by transactionId descending', async () => {
      const answer = await listed({ startTime: at(11), endTime: at(11) });
      expect(answer.ids).toHaveLength(3);
      expect(answer.ids).toEqual([...answer.ids].sort().reverse());
    });

    it('keeps each transaction as posted: card, type, status and createdAt', async () => {
      const answer = await listed({});
      for (const m of model) {
        expect(answer.data.find((x) => x.transactionId === m.transactionId)).toMatchObject(m);
      }
    });
  });

  describe('filters', () => {
    it('filters by cardId', async () => {
      for (const card of [first, second]) {
        expect(
          await expectSelection({ cardId: card.cardId }, (m) => m.cardId === card.cardId),
        ).toBeGreaterThan(0);
      }
    });

    it('answers an empty page for a cardId the merchant does not have', async () => {
      expect(await expectSelection({ cardId: 'card_unknown' }, () => false)).toBe(0);
    });

    it('filters by each type', async () => {
      for (const type of ['PURCHASE', 'REFUND', 'REVERSAL', 'VERIFICATION', 'FEE'] as const) {
        expect(await expectSelection({ type }, (m) => m.type === type)).toBeGreaterThan(0);
      }
    });

    it('filters by each status', async () => {
      for (const status of ['PENDING', 'COMPLETED', 'DECLINED', 'SETTLED'] as const) {
        expect(await expectSelection({ status }, (m) => m.status === status)).toBeGreaterThan(0);
      }
    });

    it('combines cardId, type and status (all must hold)', async () => {
      const combos: Record<string, string>[] = [
        { cardId: first.cardId, type: 'PURCHASE' },
        { cardId: second.cardId, status: 'PENDING' },
        { type: 'PURCHASE', status: 'SETTLED' },
        { cardId: first.cardId, type: 'PURCHASE', status: 'COMPLETED' },
        { cardId: second.cardId, type: 'VERIFICATION', status: 'DECLINED' },
        { cardId: first.cardId, type: 'REVERSAL' },
      ];
      for (const query of combos) {
        await expectSelection(
          query,
          (m) =>
            (query.cardId === undefined || m.cardId === query.cardId) &&
            (query.type === undefined || m.type === query.type) &&
            (query.status === undefined || m.status === query.status),
        );
      }
    });
  });

  describe('time range', () => {
    const inRange = (m: Model, start?: string, end?: string) =>
      (start === undefined || Date.parse(m.createdAt) >= Date.parse(start)) &&
      (end === undefined || Date.parse(m.createdAt) <= Date.parse(end));

    it('includes a transaction created exactly at startTime and one exactly at endTime', async () => {
      const count = await expectSelection({ startTime: at(2), endTime: at(5) }, (m) =>
        inRange(m, at(2), at(5)),
      );
      expect(count).toBe(4);
    });

    it('excludes a transaction one millisecond outside either end', async () => {
      const start = new Date(Date.parse(at(2)) + 1).toISOString();
      const end = new Date(Date.parse(at(5)) - 1).toISOString();
      const count = await expectSelection({ startTime: start, endTime: end }, (m) =>
        inRange(m, start, end),
      );
      expect(count).toBe(2);
    });

    it('answers the transactions at one instant when startTime equals endTime', async () => {
      expect(
        await expectSelection({ startTime: at(7), endTime: at(7) }, (m) => m.createdAt === at(7)),
      ).toBe(1);
    });

    it('compares digits past the millisecond exactly: a start just after a row excludes it', async () => {
      const past = (iso: string, digits: string) => `${iso.slice(0, 23)}${digits}Z`;
      // at(2) has whole milliseconds, so a start 0.5 µs later must leave it out, while an end
      // 0.5 µs later (or a start written with zeros) still takes it.
      const count = await expectSelection(
        { startTime: past(at(2), '0005'), endTime: past(at(5), '0005') },
        (m) => Date.parse(m.createdAt) > Date.parse(at(2)) && inRange(m, undefined, at(5)),
      );
      expect(count).toBe(3);
      expect(
        await expectSelection({ startTime: past(at(2), '000000'), endTime: at(2) }, (m) =>
          inRange(m, at(2), at(2)),
        ),
      ).toBe(1);
    });

    it('takes either end alone', async () => {
      expect(await expectSelection({ startTime: at(9) }, (m) => inRange(m, at(9)))).toBeGreaterThan(
        4,
      );
      expect(await expectSelection({ endTime: at(3) }, (m) => inRange(m, undefined, at(3)))).toBe(
        3,
      );
    });

    it('reads an instant written with an offset as the same UTC instant', async () => {
      // The same instants written as local times two and three hours east of UTC.
      const shifted = (iso: string, hours: number) => {
        const local = new Date(Date.parse(iso) + hours * HOUR).toISOString().slice(0, 23);
        return `${local}+0${hours}:00`;
      };
      const count = await expectSelection(
        { startTime: shifted(at(2), 2), endTime: shifted(at(5), 3) },
        (m) => inRange(m, at(2), at(5)),
      );
      expect(count).toBe(4);
    });

    it('combines the time range with cardId and type', async () => {
      const query = { cardId: first.cardId, type: 'PURCHASE', startTime: at(1), endTime: at(3) };
      expect(
        await expectSelection(
          query,
          (m) => m.cardId === first.cardId && m.type === 'PURCHASE' && inRange(m, at(1), at(3)),
        ),
      ).toBe(3);
    });

    it('reads an instant in years 0 to 99 as written, not as 1900 to 1999', async () => {
      expect(
        await expectSelection({ startTime: '0000-12-31T23:59:59.999Z' }, () => true),
      ).toBeGreaterThan(0);
      expect(await expectSelection({ endTime: '0099-12-31T23:59:59Z' }, () => false)).toBe(0);
    });

    it('refuses timestamps that are not real ISO 8601 instants with 400', async () => {
      const bad = [
        'yesterday',
        '2026-02-30T00:00:00.000Z',
        '2026-13-01T00:00:00Z',
        '2026-01-01T24:00:00Z',
        '2026-01-01T10:00:00',
        '2026-01-01 10:00:00Z',
        '1700000000000',
        '2026-01-01T10:00:00+24:00',
        '2026-01-01T10:00:00-01:60',
        '2026-01-01T10:00:00-99:99',
        '',
      ];
      for (const value of bad) {
        expectValidationFailure(await api.get('/transactions', { query: { startTime: value } }));
        expectValidationFailure(await api.get('/transactions', { query: { endTime: value } }));
      }
    });

    it('refuses startTime after endTime with 400', async () => {
      expectValidationFailure(
        await api.get('/transactions', { query: { startTime: at(5), endTime: at(4) } }),
      );
      const oneMsEarlier = new Date(Date.parse(at(5)) - 1).toISOString();
      expectValidationFailure(
        await api.get('/transactions', { query: { startTime: at(5), endTime: oneMsEarlier } }),
      );
      // Past the millisecond too: the start is half a microsecond after the end.
      const startTime = `${at(5).slice(0, 23)}0005Z`;
      const endTime = `${at(5).slice(0, 23)}0001Z`;
      expectValidationFailure(await api.get('/transactions', { query: { startTime, endTime } }));
    });
  });

  describe('query validation', () => {
    it('refuses an unknown query parameter with 400', async () => {
      for (const query of [{ merchantId: 'x' }, { sort: 'asc' }, { cardid: first.cardId }]) {
        expectValidationFailure(await api.get('/transactions', { query }));
      }
    });

    it('refuses an unknown type or status with 400', async () => {
      for (const query of [{ type: 'purchase' }, { type: 'TRANSFER' }, { status: 'FAILED' }]) {
        expectValidationFailure(await api.get('/transactions', { query }));
      }
    });

    it('refuses page or limit of 0, -1, 1.5 or abc with 400', async () => {
      for (const name of ['page', 'limit']) {
        for (const value of ['0', '-1', '1.5', 'abc']) {
          expectValidationFailure(await api.get('/transactions', { query: { [name]: value } }));
        }
      }
    });
  });

  describe('pagination', () => {
    const bulkTotal = BULK_POSTED + 1;

    it('answers 20 transactions by default with the true total and page count', async () => {
      const response = await bulkApi.get<Page<Transaction>>('/transactions');
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(20);
      expect(response.body.pagination).toEqual({
        total: bulkTotal,
        page: 1,
        limit: 20,
        totalPages: Math.ceil(bulkTotal / 20),
      });
    });

    it('clamps a limit above 100 to 100 and shows it in pagination.limit', async () => {
      const response = await bulkApi.get<Page<Transaction>>('/transactions', {
        query: { limit: 500 },
      });
      expect(response.body.data).toHaveLength(100);
      expect(response.body.pagination).toEqual({
        total: bulkTotal,
        page: 1,
        limit: 100,
        totalPages: Math.ceil(bulkTotal / 100),
      });
      const second = await bulkApi.get<Page<Transaction>>('/transactions', {
        query: { limit: 101, page: 2 },
      });
      expect(second.body.data).toHaveLength(bulkTotal - 100);
    });

    it('answers a page past the end with an empty data array and the true total', async () => {
      for (const query of [{ page: 8 }, { page: 3, limit: 100 }, { page: 99_999 }]) {
        const response = await bulkApi.get<Page<Transaction>>('/transactions', { query });
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual([]);
        expect(response.body.pagination.total).toBe(bulkTotal);
        expect(response.body.pagination.page).toBe(query.page);
      }
    });

    it('walks every page once, newest first, in the reverse of posting order', async () => {
      const seen: string[] = [];
      const totalPages = Math.ceil(bulkTotal / 20);
      for (let page = 1; page <= totalPages; page++) {
        const response = await bulkApi.get<Page<Transaction>>('/transactions', { query: { page } });
        expect(response.body.pagination.totalPages).toBe(totalPages);
        seen.push(...response.body.data.map((x) => x.transactionId));
      }
      // The issuance fee is written at the service's now, after all the back-dated postings.
      expect(seen).toEqual([bulkFee.transactionId, ...[...bulkPosted].reverse()]);
    });

    it('paginates within a filter', async () => {
      const response = await bulkApi.get<Page<Transaction>>('/transactions', {
        query: { type: 'VERIFICATION', limit: 50, page: 3 },
      });
      expect(response.body.data).toHaveLength(BULK_POSTED - 100);
      expect(response.body.pagination).toEqual({
        total: BULK_POSTED,
        page: 3,
        limit: 50,
        totalPages: Math.ceil(BULK_POSTED / 50),
      });
      expect(response.body.data.map((x) => x.transactionId)).toEqual(
        [...bulkPosted].reverse().slice(100),
      );
    });
  });
});
