import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Agent, request } from 'undici';
import type { FetchOnlyTarget } from './fetch-only.js';

/** What a plain client got from the upstream. */
export interface PlainClientResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
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
  target: FetchOnlyTarget,
  options: { concurrency: number; paths: readonly string[] },
): Promise<PlainClientResult> {
  const agent = new Agent({ connect: { ca: target.ca }, connections: options.concurrency });
  const headers = { 'x-api-key': target.apiKey };
  const get = async (path: string): Promise<void> => {
    const url = new URL(path, target.baseUrl);
    const response = await request(url, { dispatcher: agent, headers });
    await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(`plain client: ${url.pathname} answered ${response.statusCode}`);
  };
  try {
    // Open every connection first: the handshakes are not part of the ceiling.
    await Promise.all(Array.from({ length: options.concurrency }, () => get('/merchants/balance')));
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        for (let path = options.paths[next++]; path !== undefined; path = options.paths[next++])
          await get(path);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      requests: options.paths.length,
      seconds,
      requestsPerSecond: options.paths.length / seconds,
    };
  } finally {
    await agent.close();
  }
}
