import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Card, SensitiveCardInfo } from '../../src/contract/index.js';
import type { ApiClient } from '../support/api-client.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import {
  advanceClock,
  allCards,
  expectError,
  expectValidationFailure,
  holderFreeOffering,
  issueCard,
  newestFirst,
  type Page,
  processOrder,
} from '../support/wire-fixtures.js';

const CARD_STATUSES = [
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

/** Cards the bulk merchant holds: more than one clamped page of 100. */
const BULK_CARDS = 105;
const MINUTE = 60_000;

/** The Luhn check, written here independently of the service's own. */
function luhnValid(digits: string): boolean {
  let sum = 0;
  [...digits].reverse().forEach((char, position) => {
    const digit = Number(char);
    const doubled = position % 2 === 1 ? digit * 2 : digit;
    sum += doubled > 9 ? doubled - 9 : doubled;
  });
  return sum % 10 === 0;
}

const byNewest = newestFirst<Card>(
  (c) => c.createdAt,
  (c) => c.cardId,
);

describe('GET /cards, /cards/info and /cards/sensitive', () => {
  let t: TestSandbox;
  /** Holds BULK_CARDS PENDING cards issued in parallel bursts. */
  let bulk: ApiClient;
  /** Holds five cards issued a minute apart, brought to different statuses. */
  let curated: ApiClient;
  /** The curated cards in the order they were issued, with the status each was brought to. */
  const timeline: { cardId: string; status: (typeof CARD_STATUSES)[number] }[] = [];

  beforeAll(async () => {
    // A wall clock read to the second: the cards of a burst share their createdAt, which the
    // tie-break below needs whatever the machine's speed (to the millisecond, a slow machine
    // issued each in its own).
    t = await startTestSandbox({ wallClock: () => Math.floor(Date.now() / 1000) * 1000 });
    bulk = t.merchants[0] as ApiClient;
    curated = t.merchants[1] as ApiClient;

    const starter = await holderFreeOffering(bulk);
    for (let burst = 0; burst < BULK_CARDS; burst += 35) {
      const size = Math.min(35, BULK_CARDS - burst);
      const answers = await Promise.all(
        Array.from({ length: size }, () =>
          bulk.post('/cards', {
            offeringId: starter.id,
            amount: starter.minLoadAmount,
            merchantOrderNo: orderNo('bulk'),
          }),
        ),
      );
      for (const answer of answers) expect(answer.status, answer.text).toBe(201);
    }

    const offering = await holderFreeOffering(curated);
    const statuses = ['ACTIVE', 'FAILED', 'FREEZING', 'FROZEN', 'PENDING'] as const;
    const issuances: string[] = [];
    for (const [i, status] of statuses.entries()) {
      if (i > 0) await advanceClock(t.control, MINUTE);
      const issued = await issueCard(curated, offering);
      issuances.push(issued.orderNo);
      timeline.push({ cardId: issued.cardId, status });
    }
    for (const [i, { cardId, status }] of timeline.entries()) {
      if (status === 'PENDING') continue;
      const outcome = status === 'FAILED' ? 'failure' : 'success';
      await processOrder(t.control, issuances[i] as string, outcome);
      if (status === 'FREEZING' || status === 'FROZEN') {
        const freeze = await curated.post('/cards/freeze', {
          cardId,
          merchantOrderNo: orderNo('freeze'),
        });
        expect(freeze.status, freeze.text).toBe(201);
        if (status === 'FROZEN') await processOrder(t.control, freeze.body.data.orderNo);
      }
    }
  });
  afterAll(async () => t.close());

  describe('pagination', () => {
    it('returns 20 cards by default with the true total and page count', async () => {
      const response = await bulk.get<Page<Card>>('/cards');
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(20);
      expect(response.body.pagination).toEqual({
        total: BULK_CARDS,
        page: 1,
        limit: 20,
        totalPages: Math.ceil(BULK_CARDS / 20),
      });
    });

    it('clamps a limit above 100 to 100 and shows the effective limit in pagination', async () => {
      for (const limit of [101, 250, 1_000_000]) {
        const response = await bulk.get<Page<Card>>('/cards', { query: { limit } });
        expect(response.status).toBe(200);
        expect(response.body.data).toHaveLength(100);
        expect(response.body.pagination).toEqual({
          total: BULK_CARDS,
          page: 1,
          limit: 100,
          totalPages: Math.ceil(BULK_CARDS / 100),
        });
      }
      const second = await bulk.get<Page<Card>>('/cards', { query: { limit: 101, page: 2 } });
      expect(second.body.data).toHaveLength(BULK_CARDS - 100);
    });

    it('accepts a limit of exactly 100 without clamping and a limit of 1', async () => {
      const hundred = await bulk.get<Page<Card>>('/cards', { query: { limit: 100 } });
      expect(hundred.body.data).toHaveLength(100);
      expect(hundred.body.pagination.limit).toBe(100);
      const one = await bulk.get<Page<Card>>('/cards', { query: { limit: 1 } });
      expect(one.body.data).toHaveLength(1);
      expect(one.body.pagination).toEqual({
        total: BULK_CARDS,
        page: 1,
        limit: 1,
        totalPages: BULK_CARDS,
      });
    });

    it('splits the list into pages without gaps or repeats, with a short last page', async () => {
      const limit = 10;
      const expectedPages = Math.ceil(BULK_CARDS / limit);
      const seen: string[] = [];
      for (let page = 1; page <= expectedPages; page++) {
        const response = await bulk.get<Page<Card>>('/cards', { query: { page, limit } });
        expect(response.status).toBe(200);
        expect(response.body.pagination).toEqual({
          total: BULK_CARDS,
          page,
          limit,
          totalPages: expectedPages,
        });
        const expectedSize = page < expectedPages ? limit : BULK_CARDS - limit * (page - 1);
        expect(response.body.data).toHaveLength(expectedSize);
        seen.push(...response.body.data.map((c) => c.cardId));
      }
      expect(new Set(seen).size).toBe(BULK_CARDS);
      const whole = await allCards(bulk);
      expect(seen).toEqual(whole.map((c) => c.cardId));
    });

    it('answers a page past the end with an empty data array and the true total', async () => {
      for (const query of [
        { page: 7 },
        { page: 12, limit: 10 },
        { page: 3, limit: 100 },
        { page: 10_000 },
      ]) {
        const response = await bulk.get<Page<Card>>('/cards', { query });
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual([]);
        const limit = query.limit ?? 20;
        expect(response.body.pagination).toEqual({
          total: BULK_CARDS,
          page: query.page,
          limit,
          totalPages: Math.ceil(BULK_CARDS / limit),
        });
      }
    });

    it('reports zero pages for a filter that matches nothing', async () => {
      const response = await bulk.get<Page<Card>>('/cards', { query: { status: 'CANCELLED' } });
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
      expect(response.body.pagination).toEqual({ total: 0, page: 1, limit: 20, totalPages: 0 });
    });

    it('refuses page or limit of 0, -1, 1.5, abc, empty, or not in decimal digits with 400', async () => {
      const notDigits = ['Infinity', '0x10', '0b11', '0o7', '1e1', ' 1', '5\n', '+2'];
      for (const name of ['page', 'limit']) {
        for (const value of ['0', '-1', '1.5', 'abc', '', ...notDigits]) {
          const response = await bulk.get('/cards', { query: { [name]: value } });
          expectValidationFailure(response);
        }
      }
    });

    it('never answers 500 for an enormous page number: an empty page or a 400', async () => {
      for (const page of ['9007199254740991', '100000000000000000000', '1e400', '9'.repeat(40)]) {
        const response = await bulk.get<Page<Card>>('/cards', { query: { page } });
        expect([200, 400], response.text).toContain(response.status);
        if (response.status === 200) {
          expect(response.body.data).toEqual([]);
          expect(response.body.pagination.total).toBe(BULK_CARDS);
        } else {
          expectValidationFailure(response);
        }
      }
    });
  });

  describe('ordering', () => {
    it('lists newest first when the clock moved between issuances', async () => {
      const listed = (await allCards(curated)).map((c) => c.cardId);
      expect(listed).toEqual(timeline.map((c) => c.cardId).reverse());
      const cards = await allCards(curated);
      for (let i = 1; i < cards.length; i++) {
        const newer = Date.parse(cards[i - 1]?.createdAt ?? '');
        const older = Date.parse(cards[i]?.createdAt ?? '');
        expect(newer - older).toBeGreaterThanOrEqual(MINUTE);
      }
    });

    it('breaks createdAt ties by cardId descending across every page', async () => {
      const cards = await allCards(bulk);
      expect(cards).toHaveLength(BULK_CARDS);
      const ties = cards.filter((c, i) => i > 0 && cards[i - 1]?.createdAt === c.createdAt);
      // Without ties the rule is untested.
      expect(ties.length).toBeGreaterThan(0);
      expect(cards.map((c) => c.cardId)).toEqual([...cards].sort(byNewest).map((c) => c.cardId));
    });
  });

  describe('status filter', () => {
    it('returns exactly the cards in each status, with a matching total', async () => {
      for (const status of CARD_STATUSES) {
        const response = await curated.get<Page<Card>>('/cards', { query: { status } });
        expect(response.status).toBe(200);
        const expected = timeline.filter((c) => c.status === status).map((c) => c.cardId);
        expect(response.body.data.map((c) => c.cardId)).toEqual(expected.reverse());
        expect(response.body.data.every((c) => c.status === status)).toBe(true);
        expect(response.body.pagination.total).toBe(expected.length);
      }
    });

    it('pages within a filter: PENDING bulk cards counted and split by the filter', async () => {
      const response = await bulk.get<Page<Card>>('/cards', {
        query: { status: 'PENDING', limit: 50, page: 3 },
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(BULK_CARDS - 100);
      expect(response.body.pagination).toEqual({
        total: BULK_CARDS,
        page: 3,
        limit: 50,
        totalPages: Math.ceil(BULK_CARDS / 50),
      });
    });

    it('refuses an unknown status, a lower-case status and an unknown parameter with 400', async () => {
      for (const query of [{ status: 'OPEN' }, { status: 'active' }, { sort: 'asc' }]) {
        expectValidationFailure(await curated.get('/cards', { query }));
      }
    });
  });

  describe('GET /cards/info', () => {
    it('answers each card exactly as the list shows it', async () => {
      for (const card of await allCards(curated)) {
        const response = await curated.get<{ data: Card }>('/cards/info', {
          query: { cardId: card.cardId },
        });
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual(card);
      }
    });

    it('shows the status each card was brought to', async () => {
      for (const { cardId, status } of timeline) {
        const response = await curated.get<{ data: Card }>('/cards/info', { query: { cardId } });
        expect(response.body.data.status).toBe(status);
      }
    });

    it('never carries the sensitive fields', async () => {
      const { cardId } = timeline[0] ?? { cardId: '' };
      const info = await curated.get('/cards/info', { query: { cardId } });
      const sensitive = await curated.get<{ data: SensitiveCardInfo }>('/cards/sensitive', {
        query: { cardId },
      });
      for (const key of ['cardNumber', 'cvv', 'expiryMonth', 'expiryYear']) {
        expect(info.body.data).not.toHaveProperty(key);
      }
      expect(info.text).not.toContain(sensitive.body.data.cardNumber);
      const list = await curated.get('/cards');
      expect(list.text).not.toContain(sensitive.body.data.cardNumber);
    });
  });

  describe('cardId checks on /cards/info and /cards/sensitive', () => {
    for (const path of ['/cards/info', '/cards/sensitive']) {
      it(`${path} without cardId, or with an empty one, answers 400 VALIDATION_FAILED`, async () => {
        expectValidationFailure(await curated.get(path));
        expectValidationFailure(await curated.get(path, { query: { cardId: '' } }));
      });

      it(`${path} with an unknown cardId answers 404 CARD_NOT_FOUND`, async () => {
        const response = await curated.get(path, { query: { cardId: 'card_does_not_exist' } });
        expectError(response, 404, 'CARD_NOT_FOUND');
      });

      it(`${path} with an extra query parameter answers 400`, async () => {
        const { cardId } = timeline[0] ?? { cardId: '' };
        expectValidationFailure(await curated.get(path, { query: { cardId, verbose: 'true' } }));
      });
    }
  });

  describe('GET /cards/sensitive', () => {
    it('gives a Luhn-valid number ending in lastFour, a 3-digit cvv and a real expiry', async () => {
      const cards = [...(await allCards(curated)), ...(await allCards(bulk)).slice(0, 20)];
      const numbers = new Set<string>();
      for (const card of cards) {
        const client = card.merchantId === t.sandbox.merchants[0]?.merchantId ? bulk : curated;
        const response = await client.get<{ data: SensitiveCardInfo }>('/cards/sensitive', {
          query: { cardId: card.cardId },
        });
        expect(response.status).toBe(200);
        const { cardNumber, cvv, expiryMonth, expiryYear } = response.body.data;
        expect(cardNumber).toMatch(/^\d{12,19}$/);
        expect(luhnValid(cardNumber), cardNumber).toBe(true);
        expect(cardNumber.endsWith(card.lastFour)).toBe(true);
        expect(cvv).toMatch(/^\d{3}$/);
        expect(expiryMonth).toMatch(/^(0[1-9]|1[0-2])$/);
        expect(expiryYear).toMatch(/^\d{4}$/);
        // The card is valid through the end of its expiry month, which lies after its issue.
        const validUntil = Date.UTC(Number(expiryYear), Number(expiryMonth), 1);
        expect(validUntil).toBeGreaterThan(Date.parse(card.createdAt));
        numbers.add(cardNumber);
      }
      expect(numbers.size).toBe(cards.length);
    });

    it('answers the same details on every read of a card', async () => {
      const { cardId } = timeline[1] ?? { cardId: '' };
      const first = await curated.get('/cards/sensitive', { query: { cardId } });
      const second = await curated.get('/cards/sensitive', { query: { cardId } });
      expect(second.body).toEqual(first.body);
    });
  });
});
