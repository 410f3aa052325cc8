import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { checkServerIdentity } from '../../src/api/check-server-identity.js';
import { createLogger } from '../../src/log/logger.js';
import { startSandbox } from '../../src/sandbox/sandbox.js';

const LATENCY_MS = 300;

describe('closing the sandbox with a call in flight', () => {
  it('drops a call held by injected latency without running it on the closed store', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const sandbox = await startSandbox({
      logger: createLogger({ level: 'warn', destination }),
      seed: 'close-in-flight',
      faults: [{ kind: 'latency', ms: LATENCY_MS }],
    });
    const agent = new Agent({ connect: { ca: sandbox.caPem, checkServerIdentity } });
    try {
      const answer = request(new URL('/merchants/balance', sandbox.baseUrl), {
        headers: { 'x-api-key': sandbox.merchants[0]?.apiKey ?? '' },
        dispatcher: agent,
      }).then(
        () => 'answered',
        () => 'failed',
      );
      // The lab has taken the call: it now waits out the latency inside the service.
      await vi.waitFor(() => expect(sandbox.faults.list()[0]?.fired).toBe(1));
      await sandbox.close();
      expect(await answer).toBe('failed');
      // Past the latency, when the call would have gone on to read the closed store.
      await sleep(2 * LATENCY_MS);
      const errors = lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
      expect(errors).toEqual([]);
    } finally {
      await agent.close();
      await sandbox.close();
    }
  });

  it('holds many calls in injected latency at once without a listener warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const sandbox = await startSandbox({
      logger: createLogger({ level: 'silent' }),
      seed: 'latency-in-flight',
      faults: [{ kind: 'latency', ms: 50 }],
    });
    const agent = new Agent({
      connect: { ca: sandbox.caPem, checkServerIdentity },
      connections: 32,
    });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 32 }, async () => {
          const response = await request(new URL('/merchants/balance', sandbox.baseUrl), {
            headers: { 'x-api-key': sandbox.merchants[0]?.apiKey ?? '' },
            dispatcher: agent,
          });
          await response.body.dump();
          return response.statusCode;
        }),
      );
      expect(statuses).toEqual(Array.from({ length: 32 }, () => 200));
      // Node emits process warnings on the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await agent.close();
      await sandbox.close();
    }
  });
});
