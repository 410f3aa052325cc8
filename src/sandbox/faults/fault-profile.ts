import { resolve } from 'node:path';
import { readSettingFile } from '../../config/read-setting-file.js';
import { SettingFileError } from '../../config/setting-file-error.js';
import { FaultConfigError } from './fault-config-error.js';
import type { FaultRule } from './fault-rule.js';
import { parseFaultRules } from './parse-fault-rules.js';

/** A profile is a list of rules: a megabyte is far beyond any real one. */
const MAX_PROFILE_BYTES = 1_048_576;

/**
 * Read a fault profile: a JSON file `{"rules": [...]}` whose rules follow docs/sandbox.md.
 * @example const rules = await loadFaultProfile('faults.json'); await startSandbox({ faults: rules, logger });
 * The file is read as configuration files are ({@link readSettingFile}): a FIFO or a device is
 * refused rather than read, so a profile path mistyped as `/dev/stdin` or a pipe cannot hold the
 * sandbox's start-up.
 * @throws FaultConfigError FAULT_PROFILE_UNREADABLE (missing file, not a regular file, not JSON) or FAULT_RULE_INVALID
 * (each problem naming its field, e.g. `rules[0].retryAfterSeconds must be >= 0`).
 */
export async function loadFaultProfile(path: string): Promise<FaultRule[]> {
  let text: string;
  try {
    text = await readSettingFile(resolve(path), MAX_PROFILE_BYTES);
  } catch (error) {
    if (!(error instanceof SettingFileError)) throw error;
    const reason = error.errno ?? error.problem;
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
