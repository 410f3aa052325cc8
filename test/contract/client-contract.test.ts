import { describe, expect, it } from 'vitest';
import { ResponseValidator } from '../../src/api/response-validator.js';
import { CLIENT_CONTRACT } from '../../src/contract/client-contract.js';
import { deriveClientContract } from '../../src/contract/derive-client-contract.js';
import { type OperationId, ROUTES } from '../../src/contract/routes.js';

describe('the client contract', () => {
  it('equals what ROUTES gives (run npm run client-contract after a contract change)', () => {
    expect(CLIENT_CONTRACT).toEqual(deriveClientContract());
  });

  it('names every operation of ROUTES with its method, path and response shape', () => {
    expect(Object.keys(CLIENT_CONTRACT.operations).sort()).toEqual(Object.keys(ROUTES).sort());
    const shapes = Object.fromEntries(
      Object.entries(CLIENT_CONTRACT.operations).map(([id, op]) => [id, op.shape]),
    );
    expect(shapes).toMatchObject({
      listCards: 'page',
      listTransactions: 'page',
      listOfferings: 'list',
      getCard: 'single',
      issueCard: 'single',
    });
    for (const [id, route] of Object.entries(ROUTES)) {
      const op = CLIENT_CONTRACT.operations[id as OperationId];
      expect([op.method, op.path]).toEqual([route.method, route.path]);
      expect(CLIENT_CONTRACT.records[op.record], `${id} answers with ${op.record}`).toBeDefined();
    }
    // Each record schema once, however many operations answer with it.
    expect(Object.keys(CLIENT_CONTRACT.records).sort()).toEqual([
      'Card',
      'MerchantBalance',
      'Offering',
      'OrderReference',
      'SensitiveCardInfo',
      'Transaction',
    ]);
    expect(CLIENT_CONTRACT.operations.listTransactions.record).toBe('Transaction');
  });

  it("checks a record against the contract's own constraints", () => {
    const validator = new ResponseValidator();
    const card = {
      cardId: 'card_1',
      merchantId: 'mch_1',
      cardOfferingId: 'off_1',
      lastFour: '4242',
      status: 'ACTIVE',
      balance: '10.00',
      currency: 'USD',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const pagination = { total: 2, page: 1, limit: 100, totalPages: 1 };
    const page = validator.page(
      'listCards',
      { data: [card, { ...card, cardId: 'card_2', lastFour: '42' }], pagination },
      { attempts: 1 },
    );
    if (!page.ok) throw new Error(page.reason);
    expect(page.value.records).toEqual([card]);
    expect(page.value.rejected.map((e) => e.message)).toEqual([
      expect.stringContaining('/lastFour'),
    ]);
    const broken = validator.page(
      'listCards',
      { data: [], pagination: { total: -1 } },
      { attempts: 1 },
    );
    expect(broken.ok).toBe(false);
  });
});
