import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CHECK_CODES, SEVERITY_OF } from '../../src/recon/check-code.js';
import { reconSettings } from '../../src/recon/recon-settings.js';
import { DISCREPANCY_COLUMNS } from '../../src/reports/finding-rows.js';
import { REPORT_FILES, reportFiles } from '../../src/reports/report-files.js';
import { stored, summaryInput } from './report-support.js';

const rows = (text: string | undefined) =>
  parse(text ?? '', { columns: true }) as Record<string, string>[];
const header = (text: string | undefined) => (text ?? '').split('\r\n')[0];

describe('discrepancies.csv', () => {
  const current = [
    stored('UNJOURNALED_CARD', 'mch_1', { cardId: 'card_b', detail: 'no issue order' }),
    stored('STALE_PENDING', 'mch_1', { transactionId: 'txn_9', cardId: 'card_a', detail: 'old' }),
    stored(
      'CARD_BALANCE_MISMATCH',
      'mch_2',
      {
        cardId: 'card_a',
        currency: 'USD',
        expected: '10.00',
        actual: '-2.50',
        delta: '-12.50',
        detail: '=HYPERLINK("x")',
      },
      { state: 'persisting' },
    ),
    stored('CARD_BALANCE_MISMATCH', 'mch_1', { cardId: 'card_z', detail: 'z' }),
    stored('NEGATIVE_BALANCE', 'mch_1', { cardId: 'card_c', actual: '-3.00', detail: 'below 0' }),
  ];
  const files = reportFiles(summaryInput({ current }));
  const table = rows(files.get(REPORT_FILES.discrepancies));

  it('has the columns of job-interface.md first, in their order, then our own', () => {
    expect(header(files.get(REPORT_FILES.discrepancies))).toBe(DISCREPANCY_COLUMNS.join(','));
    expect(DISCREPANCY_COLUMNS.slice(0, 15)).toEqual([
      'check',
      'severity',
      'merchant_id',
      'card_id',
      'transaction_id',
      'order_no',
      'merchant_order_no',
      'currency',
      'expected',
      'actual',
      'delta',
      'detail',
      'fingerprint',
      'first_seen_at',
      'state',
    ]);
  });

  it('holds one row per current finding, by severity, then check, merchant and ids', () => {
    expect(table.map((r) => [r.severity, r.check, r.merchant_id, r.card_id])).toEqual([
      ['error', 'CARD_BALANCE_MISMATCH', 'mch_1', 'card_z'],
      ['error', 'CARD_BALANCE_MISMATCH', 'mch_2', 'card_a'],
      ['error', 'NEGATIVE_BALANCE', 'mch_1', 'card_c'],
      ['warning', 'STALE_PENDING', 'mch_1', 'card_a'],
      ['info', 'UNJOURNALED_CARD', 'mch_1', 'card_b'],
    ]);
  });

  it('orders the findings a merchant order number identifies by that number', () => {
    // A journal amount too precise for its currency: an order imported without orderNo.
    const numbers = ['W000101', 'W000102', 'W000103', 'W000104', 'W000105', 'W000106'];
    const journal = numbers.map((merchantOrderNo) =>
      stored('PRECISION_VIOLATION', 'mch_1', { merchantOrderNo, detail: 'too precise' }),
    );
    const text = reportFiles(summaryInput({ current: journal })).get(REPORT_FILES.discrepancies);
    expect(rows(text).map((r) => r.merchant_order_no)).toEqual(numbers);
  });

  it('orders findings of one check and merchant by card id in UTF-16 code units, an absent id first', () => {
    // Code units put 'card_B' before 'card_a'; a locale's order would not. The fingerprints,
    // the last tie-break, give these another order.
    const cards = ['card_B', 'card_Z', 'card_a', 'card_b', 'card_c', 'card_d'];
    const findings = [...cards]
      .reverse()
      .map((cardId) => stored('PRECISION_VIOLATION', 'mch_1', { cardId, detail: 'too precise' }));
    findings.push(
      stored('PRECISION_VIOLATION', 'mch_1', { merchantOrderNo: 'W000009', detail: 'journal' }),
    );
    const text = reportFiles(summaryInput({ current: findings })).get(REPORT_FILES.discrepancies);
    expect(rows(text).map((r) => r.card_id || r.merchant_order_no)).toEqual(['W000009', ...cards]);
  });

  it('keeps amounts as numbers and neutralises a formula in a text cell', () => {
    const mismatch = table[1]!;
    expect([mismatch.expected, mismatch.actual, mismatch.delta]).toEqual([
      '10.00',
      '-2.50',
      '-12.50',
    ]);
    expect(mismatch.detail).toBe(`'=HYPERLINK("x")`);
    expect(mismatch.state).toBe('persisting');
    expect(mismatch.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gives the same bytes for the same findings in any order', () => {
    const again = reportFiles(summaryInput({ current: [...current].reverse() }));
    expect(again).toEqual(files);
  });

  it('writes resolved.csv and acknowledged.csv with their own columns, header only when empty', () => {
    expect(files.get(REPORT_FILES.resolved)).toBe(
      `${DISCREPANCY_COLUMNS.join(',')},resolved_at\r\n`,
    );
    const acked = stored(
      'OVER_REFUND',
      'mch_1',
      { cardId: 'c', tradeNo: 't', detail: 'd' },
      {
        acknowledgement: {
          reason: 'ticket 118',
          until: '2026-12-01T00:00:00.000Z',
          at: '2026-11-20T00:00:00.000Z',
          expected: null,
          actual: null,
        },
      },
    );
    const resolved = stored(
      'STALE_PENDING',
      'mch_1',
      { transactionId: 'x', detail: 'd' },
      { state: 'resolved', resolvedAt: '2026-11-21T02:00:00.000Z' },
    );
    const more = reportFiles(summaryInput({ acknowledged: [acked], resolved: [resolved] }));
    expect(rows(more.get(REPORT_FILES.acknowledged))).toMatchObject([
      {
        check: 'OVER_REFUND',
        trade_no: 't',
        ack_reason: 'ticket 118',
        ack_until: '2026-12-01T00:00:00.000Z',
      },
    ]);
    expect(rows(more.get(REPORT_FILES.resolved))).toMatchObject([
      { check: 'STALE_PENDING', state: 'resolved', resolved_at: '2026-11-21T02:00:00.000Z' },
    ]);
    expect(rows(more.get(REPORT_FILES.discrepancies))).toEqual([]);
  });
});

describe('summary.csv', () => {
  const current = [
    stored('NEGATIVE_BALANCE', 'mch_1', { cardId: 'c1', detail: 'd' }),
    stored('NEGATIVE_BALANCE', 'mch_1', { cardId: 'c2', detail: 'd' }, { state: 'persisting' }),
    stored('STALE_PENDING', 'mch_1', { transactionId: 't1', detail: 'd' }),
  ];
  const settings = reconSettings({ checks: { UNJOURNALED_CARD: false } });
  const summary = rows(
    reportFiles(
      summaryInput(
        { current },
        {
          enabled: settings.enabled,
          data: {
            syncRunId: 's9',
            syncOutcome: 'incomplete',
            complete: false,
            reason: 'sync incomplete: balance: upstream unavailable',
          },
          coverage: [
            {
              check: 'CARD_BALANCE_MISMATCH',
              merchantId: 'mch_1',
              examined: { cards: 10, transactions: 0 },
              skipped: [{ unit: 'cards', reason: 'no linked ISSUE order', count: 2 }],
            },
          ],
        },
      ),
    ).get(REPORT_FILES.summary),
  );
  const value = (section: string, check: string, measure: string) =>
    summary.find((r) => r.section === section && r.check === check && r.measure === measure)?.value;

  it('lists every check with its severity and counts, zero included', () => {
    for (const check of CHECK_CODES) {
      const mine = summary.filter((r) => r.section === 'findings' && r.check === check);
      expect(mine.map((r) => r.measure)).toEqual([
        'enabled',
        'current',
        'new',
        'persisting',
        'acknowledged',
        'resolved',
      ]);
      expect(new Set(mine.map((r) => r.severity))).toEqual(new Set([SEVERITY_OF[check]]));
    }
    expect(value('findings', 'NEGATIVE_BALANCE', 'current')).toBe('2');
    expect(value('findings', 'NEGATIVE_BALANCE', 'new')).toBe('1');
    expect(value('findings', 'NEGATIVE_BALANCE', 'persisting')).toBe('1');
    expect(value('findings', 'CARD_BALANCE_MISMATCH', 'current')).toBe('0');
  });

  it('totals by severity and overall', () => {
    const total = (severity: string) =>
      summary.find(
        (r) =>
          r.section === 'findings' &&
          r.check === '' &&
          r.severity === severity &&
          r.measure === 'current',
      )?.value;
    expect([total('error'), total('warning'), total('info'), total('')]).toEqual([
      '2',
      '1',
      '0',
      '3',
    ]);
  });

  it('says a check turned off did not run', () => {
    expect(value('findings', 'UNJOURNALED_CARD', 'enabled')).toBe('false');
    expect(
      summary.find((r) => r.section === 'coverage' && r.check === 'UNJOURNALED_CARD'),
    ).toMatchObject({ measure: 'not_run', reason: 'turned off by configuration' });
  });

  it('states coverage: examined and skipped with the reason, per check and merchant', () => {
    expect(
      summary
        .filter((r) => r.section === 'coverage' && r.check === 'CARD_BALANCE_MISMATCH')
        .map((r) => [r.merchant_id, r.measure, r.unit, r.reason, r.value]),
    ).toEqual([
      ['mch_1', 'examined', 'cards', '', '10'],
      ['mch_1', 'examined', 'transactions', '', '0'],
      ['mch_1', 'skipped', 'cards', 'no linked ISSUE order', '2'],
    ]);
  });

  it('flags data from an incomplete sync, with the reason', () => {
    expect(summary.find((r) => r.measure === 'data_complete')).toMatchObject({
      section: 'run',
      value: 'false',
      reason: 'sync incomplete: balance: upstream unavailable',
    });
    expect(value('run', '', 'sync_outcome')).toBe('incomplete');
    expect(summary.find((r) => r.measure === 'cutoff')).toMatchObject({
      merchant_id: 'mch_1',
      value: '2026-11-21T01:59:00.000Z',
    });
  });
});
