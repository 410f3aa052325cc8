import { Agent } from 'undici';
import { checkServerIdentity } from '../../src/api/check-server-identity.js';
import { createLogger } from '../../src/log/logger.js';
import {
  type RunningSandbox,
  type SandboxOptions,
  startSandbox,
} from '../../src/sandbox/sandbox.js';
import { ApiClient } from './api-client.js';
import { OpenApiValidator } from './openapi-validator.js';

/** A sandbox started for one test file, with clients for its merchants and its control surface. */
export interface TestSandbox {
  readonly sandbox: RunningSandbox;
  /** A client per merchant, in the order `sandbox.merchants` lists them. */
  readonly merchants: readonly ApiClient[];
  /** A client for `/_control` (x-control-token set, no merchant key). */
  readonly control: ApiClient;
  /** A client with no key at all. */
  readonly anonymous: ApiClient;
  readonly agent: Agent;
  readonly validator: OpenApiValidator;
  close(): Promise<void>;
}

/**
 * Start a real sandbox over HTTPS on port 0 with the control surface on and orders processed
 * only on demand (unless `options` says otherwise). Close it in `afterAll`.
 */
export async function startTestSandbox(
  options: Partial<SandboxOptions> = {},
): Promise<TestSandbox> {
  const sandbox = await startSandbox({
    logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    control: true,
    processingDelayMs: 'manual',
    ...options,
  });
  const agent = new Agent({ connect: { ca: sandbox.caPem, checkServerIdentity }, connections: 16 });
  const validator = new OpenApiValidator(sandbox.openApiDocument());
  const merchants = sandbox.merchants.map(
    (m) => new ApiClient({ baseUrl: sandbox.baseUrl, agent, key: m.apiKey, validator }),
  );
  const control = new ApiClient({
    baseUrl: sandbox.baseUrl,
    agent,
    headers: { 'x-control-token': sandbox.controlToken ?? '' },
  });
  const anonymous = new ApiClient({ baseUrl: sandbox.baseUrl, agent, validator });
  return {
    sandbox,
    merchants,
    control,
    anonymous,
    agent,
    validator,
    close: async () => {
      await agent.close();
      await sandbox.close();
    },
  };
}

let orderCounter = 0;

/** A fresh merchantOrderNo for a test. */
export function orderNo(prefix = 'mo'): string {
  orderCounter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${orderCounter}`;
}
