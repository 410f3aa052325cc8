import { writeFileSync } from 'node:fs';
import { deriveClientContract } from './derive-client-contract.js';

/**
 * `npm run client-contract`: rewrite src/contract/client-contract.ts from ROUTES after a change
 * to the contract (test/contract/client-contract.test.ts fails until then).
 */
const target = new URL('../../src/contract/client-contract.ts', import.meta.url);
const header = [
  '// Generated from ROUTES (routes.ts) by `npm run client-contract`: do not edit by hand.',
  '// The API client reads the contract from here, so a run does not load typebox.',
  "import type { ClientContract } from './client-contract-shape.js';",
  '',
].join('\n');
const body = JSON.stringify(deriveClientContract(), null, 2);
writeFileSync(target, `${header}\nexport const CLIENT_CONTRACT: ClientContract = ${body};\n`);
