import type { Logger } from 'pino';
import { startSandbox } from './sandbox.js';

/** The OpenAPI 3.1 document the service serves at `/openapi.json`, built from the wire contract. */
export async function openApiDocument(logger: Logger): Promise<Record<string, unknown>> {
  const sandbox = await startSandbox({ logger, merchants: 1 });
  try {
    return sandbox.openApiDocument();
  } finally {
    await sandbox.close();
  }
}
