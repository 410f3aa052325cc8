import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Agent, request } from 'undici';

/** What a plain client got from the upstream. */
export interface PlainClientResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** Rows in the bodies read, for a rate comparable with the sync's. */
  readonly rows: number;
}

/** The merchant to read and how to trust its server. */
export interface PlainClientTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly ca: string;
}

/** The path and query of every request undici sends while `work` runs, in order. */
export async function recordRequests<T>(
  work: () => Promise<T>,
): Promise<{ value: T; paths: string[] }> {
  const paths: string[] = [];
  const onCreate = (message: unknown) => {
    paths.push((message as { request: { path: string } }).request.path);
  };
  subscribe('undici:request:create', onCreate);
  try {
    return { value: await work(), paths };
  } finally {
    unsubscribe('undici:request:create', onCreate);
  }
}

/**
 * The upstream's own ceiling for a client at `concurrency`: the requests of `paths` sent again
 * (as recorded from a sync's reading, so the same pages), `concurrency` at a time and none
 * waiting for another, each body read whole and thrown away: nothing parsed, validated or
 * stored. A sync can only be slower; the gap between the two is what its own work costs.
 */
export async function plainClient(
  target: PlainClientTarget,
  options: { concurrency: number; paths: readonly string[] },
): Promise<PlainClientResult> {
  const agent = new Agent({ connect: { ca: target.ca }, connections: options.concurrency });
  const headers = { 'x-api-key': target.apiKey };
  const get = async (path: string): Promise<number> => {
    const url = new URL(path, target.baseUrl);
    const response = await request(url, { dispatcher: agent, headers });
    const body = await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(`plain client: ${url.pathname} answered ${response.statusCode}`);
    // Rows counted without parsing: each row of a list names its own id once.
    const id = url.pathname.endsWith('/transactions') ? '"transactionId"' : '"cardId"';
    return body.split(id).length - 1;
  };
  try {
    // Open every connection first: the handshakes are not part of the ceiling.
    await Promise.all(Array.from({ length: options.concurrency }, () => get('/merchants/balance')));
    let next = 0;
    let rows = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        for (let path = options.paths[next++]; path !== undefined; path = options.paths[next++]) {
          const read = await get(path);
          rows += read;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      requests: options.paths.length,
      seconds,
      requestsPerSecond: options.paths.length / seconds,
      rows,
    };
  } finally {
    await agent.close();
  }
}
