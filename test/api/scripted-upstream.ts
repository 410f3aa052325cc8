import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CardIssuingClient, type CardIssuingClientOptions } from '../../src/api/index.js';
import { loadTlsMaterial } from '../../src/sandbox/tls/certificates.js';
import { recordingSleep, silentLogger } from './client-fixtures.js';

/** How the scripted upstream answers each request. */
export type Answer = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * An HTTPS server on port 0 with a throwaway CA, answering as each test scripts it: for what a
 * real upstream may send and the sandbox never does (a garbled Date header, a gzip body, a
 * redirect...). Everything the sandbox can produce is tested against the sandbox instead.
 */
export interface ScriptedUpstream {
  readonly baseUrl: string;
  readonly caPem: string;
  /** Requests received so far. */
  readonly requests: IncomingMessage[];
  /** Answer every following request this way. */
  answer(answer: Answer): void;
  /** A client of this upstream trusting its CA, waits recorded rather than slept. */
  client(options?: Partial<CardIssuingClientOptions>): {
    client: CardIssuingClient;
    waits: number[];
  };
  close(): Promise<void>;
}

/** The merchant balance body, the smallest valid answer. */
export const BALANCE_BODY = '{"data":{"balance":"10.00","currency":"USD"}}';

/** Start a {@link ScriptedUpstream} answering a valid balance until told otherwise. */
export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const dir = await mkdtemp(join(tmpdir(), 'cardsync-scripted-'));
  const tls = await loadTlsMaterial(dir, false);
  const requests: IncomingMessage[] = [];
  let current: Answer = (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(BALANCE_BODY);
  };
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    requests.push(req);
    current(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    caPem: tls.caPem,
    requests,
    answer(answer) {
      current = answer;
    },
    client(options = {}) {
      const recorder = recordingSleep();
      const client = new CardIssuingClient({
        baseUrl,
        apiKey: 'scripted-key',
        ca: tls.caPem,
        random: () => 0.5,
        sleep: recorder.sleep,
        logger: silentLogger,
        ...options,
      });
      return { client, waits: recorder.waits };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The call's rejection, or undefined when it succeeded. */
export function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (error: unknown) => error,
  );
}
