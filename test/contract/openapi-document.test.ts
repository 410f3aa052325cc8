import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/contract/index.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

describe('the OpenAPI document', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ merchants: 1 });
  });
  afterAll(async () => t.close());

  it('is served at /openapi.json without a key and equals docs/openapi.json (run npm run openapi after a contract change)', async () => {
    const served = await t.anonymous.get('/openapi.json');
    expect(served.status).toBe(200);
    const kept = JSON.parse(
      await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'),
    );
    expect(served.body).toEqual(kept);
  });

  it('describes every operation of the contract with its success status and the exact 401', async () => {
    const { body: document } = await t.anonymous.get('/openapi.json');
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.values(ROUTES);
    expect(operations).toHaveLength(12);
    for (const route of operations) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
      expect(Object.keys(operation.responses)).toContain(String(route.successStatus));
      expect(
        operation.responses['401'].content['application/json'].schema.properties.message.enum,
      ).toEqual(['Unauthorized']);
    }
    expect(Object.keys(document.paths).some((path) => path.startsWith('/_control'))).toBe(false);
  });
});
