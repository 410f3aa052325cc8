import { readFile } from 'node:fs/promises';
import { FaultConfigError } from './fault-config-error.js';
import type { FaultRule } from './fault-rule.js';
import { parseFaultRules } from './parse-fault-rules.js';

/**
 * Read a fault profile: a JSON file `{"rules": [...]}` whose rules follow docs/sandbox.md.
 * @example const rules = await loadFaultProfile('faults.json'); await startSandbox({ faults: rules, logger });
 * @throws FaultConfigError FAULT_PROFILE_UNREADABLE (missing file, not JSON) or FAULT_RULE_INVALID
 * (each problem naming its field, e.g. `rules[0].retryAfterSeconds must be >= 0`).
 */
export async function loadFaultProfile(path: string): Promise<FaultRule[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'read failed';
    throw new FaultConfigError('FAULT_PROFILE_UNREADABLE', [`cannot read the file (${reason})`], {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new FaultConfigError(
      'FAULT_PROFILE_UNREADABLE',
      [`not valid JSON: ${(error as Error).message}`],
      { cause: error },
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new FaultConfigError('FAULT_RULE_INVALID', [
      'the profile must be an object {"rules": [...]}',
    ]);
  }
  const extra = Object.keys(json).filter((key) => key !== 'rules');
  if (extra.length > 0) {
    throw new FaultConfigError(
      'FAULT_RULE_INVALID',
      extra.map((key) => `${key} is not a field of a fault profile (only rules)`),
    );
  }
  return parseFaultRules((json as { rules?: unknown }).rules, 'rules');
}
