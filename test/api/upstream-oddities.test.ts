import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHttpDate, UpstreamError } from '../../src/api/index.js';
import {
  BALANCE_BODY,
  failureOf,
  type ScriptedUpstream,
  startScriptedUpstream,
} from './scripted-upstream.js';

/** A transaction as the contract has it, `merchantName` given. */
function transaction(id: string, merchantName: string): Record<string, string> {
  return {
    transactionId: id,
    cardId: 'card_1',
    tradeNo: `trade_${id}`,
    type: 'PURCHASE',
    status: 'COMPLETED',
    amount: '12.50',
    currency: 'USD',
    merchantName,
    fee: '0.00',
    createdAt: '2026-11-21T02:00:00.000Z',
  };
}

/** A one-page listTransactions body of `records`. */
function transactionPage(records: Record<string, string>[]): string {
  const pagination = { total: records.length, page: 1, limit: 100, totalPages: 1 };
  return JSON.stringify({ data: records, pagination });
}

/** Answer 200 with these bytes as JSON. */
function json(bytes: Buffer | string, headers: Record<string, string> = {}) {
  return (_request: unknown, response: import('node:http').ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json', ...headers });
    response.end(bytes);
  };
}

describe('CardIssuingClient: what a real upstream may send', () => {
  let up: ScriptedUpstream;
  beforeAll(async () => {
    up = await startScriptedUpstream();
  });
  afterAll(async () => {
    await up.close();
  });

  it('takes no upstream time from a Date header that is not an HTTP-date (Date.parse read "12345" as the year 12345)', async () => {
    for (const garbled of ['12345', '1', 'garbage 12', '2026']) {
      up.answer((_request, response) => {
        response.sendDate = false;
        response.writeHead(200, { 'content-type': 'application/json', date: garbled });
        response.end(BALANCE_BODY);
      });
      const { client } = up.client();
      try {
        expect((await client.getMerchantBalance()).currency).toBe('USD');
        expect(client.upstreamNow(), garbled).toBeUndefined();
      } finally {
        await client.close();
      }
    }
  });

  it('reads the three HTTP-date forms RFC 9110 names, and nothing else', () => {
    const at = Date.parse('2026-11-21T02:00:05.000Z');
    expect(parseHttpDate('Sat, 21 Nov 2026 02:00:05 GMT')).toBe(at);
    expect(parseHttpDate('Saturday, 21-Nov-26 02:00:05 GMT')).toBe(at);
    expect(parseHttpDate('Sat Nov 21 02:00:05 2026')).toBe(at);
    expect(parseHttpDate('Sat Nov  1 02:00:05 2026')).toBe(Date.parse('2026-11-01T02:00:05Z'));
    for (const junk of [
      '12345',
      '1',
      '0',
      '2026',
      'garbage 12',
      'Mon 1',
      'May 5',
      '',
      'tomorrow 1',
      'Sat, 31 Nov 2026 02:00:05 GMT',
      'Sat, 21 Nov 2026 25:00:05 GMT',
      'Sat, 21 Nov 2026 02:00:05 +0500',
      'Sat, 21 Nov 12345 02:00:05 GMT',
    ]) {
      expect(parseHttpDate(junk), junk).toBeUndefined();
    }
  });

  it("reads an RFC 850 date more than 50 years ahead by its whole timestamp, not its year's first day, as the past century (RFC 9110), and a four-digit year under 100 as itself", () => {
    const now = Date.parse('2026-11-26T14:00:00Z');
    // 2076-12-31 is more than 50 years ahead of 2026-11-26, though 2076-01-01 is not.
    expect(parseHttpDate('Thursday, 31-Dec-76 00:00:00 GMT', now)).toBe(
      Date.parse('1976-12-31T00:00:00Z'),
    );
    expect(parseHttpDate('Wednesday, 25-Nov-76 00:00:00 GMT', now)).toBe(
      Date.parse('2076-11-25T00:00:00Z'),
    );
    expect(parseHttpDate('Friday, 01-Jan-77 00:00:00 GMT', now)).toBe(
      Date.parse('1977-01-01T00:00:00Z'),
    );
    // Date.UTC reads the years 0 to 99 as 1900 to 1999.
    expect(parseHttpDate('Sun, 06 Nov 0050 08:49:37 GMT', now)).toBe(
      Date.parse('0050-11-06T08:49:37Z'),
    );
  });

  it('reads an expiry month without its leading zero and a two-digit expiry year (the interface says only "month" and "year"), instead of refusing the card\'s sensitive fields', async () => {
    for (const [expiryMonth, expiryYear] of [
      ['3', '28'],
      ['03', '2028'],
      ['12', '2031'],
    ]) {
      const data = { cardNumber: '4111111111111111', cvv: '123', expiryMonth, expiryYear };
      up.answer(json(JSON.stringify({ data })));
      const { client } = up.client();
      try {
        expect(await client.getSensitiveCard('card_1')).toEqual(data);
      } finally {
        await client.close();
      }
    }
  });

  it('refuses an expiry month or year that is no month or year', async () => {
    for (const [expiryMonth, expiryYear] of [
      ['13', '2028'],
      ['0', '2028'],
      ['03', '202'],
      ['03', 'soon'],
    ]) {
      const data = { cardNumber: '4111111111111111', cvv: '123', expiryMonth, expiryYear };
      up.answer(json(JSON.stringify({ data })));
      const { client } = up.client();
      try {
        await expect(
          client.getSensitiveCard('card_1'),
          `${expiryMonth}/${expiryYear}`,
        ).rejects.toThrow();
      } finally {
        await client.close();
      }
    }
  });

  it('reads a body that starts with a byte order mark (RFC 8259 lets a parser ignore it), instead of refusing it as not JSON six times', async () => {
    up.answer(json(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BALANCE_BODY)])));
    const { client, waits } = up.client();
    try {
      expect(await client.getMerchantBalance()).toEqual({ balance: '10.00', currency: 'USD' });
      expect(waits).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('refuses a record holding bytes that are not UTF-8, keeping the rest of its page, instead of mirroring U+FFFD in their place', async () => {
    const body = Buffer.from(
      transactionPage([transaction('tx_1', 'Cafe'), transaction('tx_2', 'Caf__BAD__')]),
    );
    const at = body.indexOf('__BAD__');
    up.answer(
      json(Buffer.concat([body.subarray(0, at), Buffer.from([0xe9]), body.subarray(at + 7)])),
    );
    const { client } = up.client();
    try {
      const page = await client.listTransactions();
      expect(page.records.map((r) => r.transactionId)).toEqual(['tx_1']);
      expect(page.rejected.map((r) => r.recordId)).toEqual(['tx_2']);
      expect(page.rejected[0]?.reason).toContain('UTF-8');
    } finally {
      await client.close();
    }
  });

  it('refuses records holding a lone surrogate escape, ids that would read back alike, and keeps escaped pairs', async () => {
    // JSON.stringify writes a lone surrogate as its escape, as an upstream's encoder may.
    up.answer(
      json(
        transactionPage([
          transaction('tx_\ud800', 'Cafe'),
          transaction('tx_\ud801', 'Cafe'),
          transaction('tx_3', 'Caf\udc00e'),
          transaction('tx_4', 'Smile \ud83d\ude00'),
          transaction('tx_5', 'Cafe \\ud800 text'),
        ]),
      ),
    );
    const { client } = up.client();
    try {
      const page = await client.listTransactions();
      expect(page.records.map((r) => [r.transactionId, r.merchantName])).toEqual([
        ['tx_4', 'Smile \u{1f600}'],
        ['tx_5', 'Cafe \\ud800 text'],
      ]);
      expect(page.rejected.map((r) => r.recordId)).toEqual(['tx_\ud800', 'tx_\ud801', 'tx_3']);
      for (const rejected of page.rejected)
        expect(rejected.reason).toContain('lone UTF-16 surrogate');
    } finally {
      await client.close();
    }
  });

  it('keeps a record whose U+FFFD came as its UTF-8 bytes in a body that is UTF-8 throughout', async () => {
    up.answer(json(transactionPage([transaction('tx_1', 'Caf\ufffd')])));
    const { client } = up.client();
    try {
      const page = await client.listTransactions();
      expect(page.records.map((r) => r.merchantName)).toEqual(['Caf\ufffd']);
      expect(page.rejected).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('reads a body in a content coding it did not ask for (gzip, deflate, br: RFC 9110 lets a server pick any when none is named), instead of refusing it as not JSON', async () => {
    const codings = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    for (const [coding, compress] of Object.entries(codings)) {
      up.answer(json(compress(Buffer.from(BALANCE_BODY)), { 'content-encoding': coding }));
      const { client, waits } = up.client();
      try {
        expect(await client.getMerchantBalance(), coding).toEqual({
          balance: '10.00',
          currency: 'USD',
        });
        expect(waits).toEqual([]);
      } finally {
        await client.close();
      }
    }
  });

  it('takes a 204 to an order that names a content-encoding as accepted after one attempt (no content: nothing to decode), instead of retrying a gzip it could not undo until the order failed', async () => {
    for (const coding of ['gzip', 'deflate', 'br', 'identity, gzip']) {
      up.answer((_request, response) => {
        response.writeHead(204, { 'content-encoding': coding });
        response.end();
      });
      const { client, waits } = up.client();
      try {
        await expect(
          client.freezeCard({ cardId: 'card_1', merchantOrderNo: 'm-1' }),
          coding,
        ).resolves.toEqual({
          orderNo: undefined,
          merchantOrderNo: 'm-1',
          replayed: false,
          status: 204,
        });
        expect(client.stats().requests, coding).toBe(1);
        expect(waits).toEqual([]);
      } finally {
        await client.close();
      }
    }
  });

  it('gives up at once on a content coding it cannot read, naming it', async () => {
    up.answer(json(BALANCE_BODY, { 'content-encoding': 'zstd' }));
    const { client } = up.client();
    try {
      const error = await failureOf(client.getMerchantBalance());
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({
        code: 'UPSTREAM_MALFORMED_RESPONSE',
        attempts: 1,
        status: 200,
      });
      expect((error as Error).message).toContain('zstd');
    } finally {
      await client.close();
    }
  });

  it('gives up at once on a body larger than maxBodyBytes, as it arrives, compressed or not, instead of holding it whole in memory', async () => {
    const big = Buffer.concat([
      Buffer.from('{"data":{"balance":"10.00","currency":"USD"'),
      Buffer.alloc(4 << 20, 0x20),
      Buffer.from('}}'),
    ]);
    const answers = {
      streamed: (_request: unknown, response: import('node:http').ServerResponse) => {
        // Written in two parts: sent chunked, its length known only at its end.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(big.subarray(0, 10));
        response.end(big.subarray(10));
      },
      announced: json(big),
      gzipped: json(gzipSync(big), { 'content-encoding': 'gzip' }),
    };
    for (const [how, answer] of Object.entries(answers)) {
      up.answer(answer);
      const { client, waits } = up.client({ maxBodyBytes: 1 << 20 });
      try {
        const error = await failureOf(client.getMerchantBalance());
        expect(error, how).toBeInstanceOf(UpstreamError);
        expect(error).toMatchObject({
          code: 'UPSTREAM_MALFORMED_RESPONSE',
          attempts: 1,
          status: 200,
        });
        expect((error as Error).message).toContain('larger than 1048576 bytes');
        expect(waits).toEqual([]);
      } finally {
        await client.close();
      }
    }
  });

  it('tries a read or an order again after a 408 (the request timed out before it was taken), the order with the same body', async () => {
    let seen = 0;
    const bodies: string[] = [];
    up.answer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        bodies.push(body);
        seen += 1;
        if (seen % 2 === 1) {
          response.writeHead(408, { 'content-type': 'application/json', connection: 'close' });
          response.end('{"code":"REQUEST_TIMEOUT","message":"the request took too long"}');
          return;
        }
        response.writeHead(request.method === 'POST' ? 201 : 200, {
          'content-type': 'application/json',
        });
        response.end(
          request.method === 'POST'
            ? '{"data":{"orderNo":"ord_1","merchantOrderNo":"m-408"}}'
            : BALANCE_BODY,
        );
      });
    });
    const { client, waits } = up.client();
    try {
      expect((await client.getMerchantBalance()).currency).toBe('USD');
      await expect(
        client.freezeCard({ cardId: 'card_1', merchantOrderNo: 'm-408' }),
      ).resolves.toMatchObject({ orderNo: 'ord_1', merchantOrderNo: 'm-408' });
      expect(seen).toBe(4);
      expect(bodies[2]).toBe(bodies[3]);
      expect(JSON.parse(bodies[3] ?? '')).toMatchObject({ merchantOrderNo: 'm-408' });
      expect(waits).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('follows no redirect, to http:// least of all, and says where it was sent and why it stopped', async () => {
    for (const [status, location] of [
      [301, 'http://cards.example.com/merchants/balance'],
      [307, '/v2/merchants/balance'],
    ] as const) {
      up.answer((_request, response) => {
        response.writeHead(status, { location });
        response.end();
      });
      const before = up.requests.length;
      const { client, waits } = up.client();
      try {
        const error = await failureOf(client.getMerchantBalance());
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error).toMatchObject({ code: 'UPSTREAM_REJECTED', status, attempts: 1 });
        expect((error as Error).message).toContain(`redirected with ${status} to ${location}`);
        expect((error as Error).message).toContain('not followed');
        expect(up.requests.length - before).toBe(1);
        expect(waits).toEqual([]);
      } finally {
        await client.close();
      }
    }
  });

  it('waits its own backoff on a 429 or 503 whose Retry-After is absent, negative or junk, and at most retryAfterCapMs for a huge one or a far HTTP-date', async () => {
    const cases: [number, string | undefined, number][] = [
      [429, undefined, 125],
      [503, undefined, 125],
      [429, '-5', 125],
      [503, 'soon', 125],
      [429, '1 2', 125],
      [429, '99999999999999999999', 60_000],
      [503, 'Fri, 01 Jan 2100 00:00:00 GMT', 60_000],
    ];
    for (const [status, retryAfter, wait] of cases) {
      up.answer((_request, response) => {
        response.writeHead(status, retryAfter === undefined ? {} : { 'retry-after': retryAfter });
        response.end();
      });
      const { client, waits } = up.client({ retry: { maxAttempts: 2 } });
      try {
        await failureOf(client.getMerchantBalance());
        expect(waits, `${status} ${retryAfter}`).toEqual([wait]);
      } finally {
        await client.close();
      }
    }
  });

  it('reads HTTP/1.0 answers and answers that close their connection each time, leaving no socket open', async () => {
    let open = 0;
    up.answer((request, response) => {
      open += 1;
      request.socket.once('close', () => {
        open -= 1;
      });
      response.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      response.end(BALANCE_BODY);
    });
    const { client } = up.client({ concurrency: 4 });
    try {
      const balances = await Promise.all(
        Array.from({ length: 40 }, () => client.getMerchantBalance()),
      );
      expect(balances.every((b) => b.currency === 'USD')).toBe(true);
      await expect.poll(() => open).toBe(0);
      up.answer((request) => {
        request.socket.end(
          `HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n${BALANCE_BODY}`,
        );
      });
      expect((await client.getMerchantBalance()).currency).toBe('USD');
    } finally {
      await client.close();
    }
  });
});
