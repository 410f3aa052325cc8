import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { JobConfig } from '../config/index.js';
import { UsageError } from './exit-codes.js';
import { buildSources, openMirrorOrExit } from './job-setup.js';
import { writeProblem } from './output-dirs.js';

/**
 * Check what each nightly run builds from `config` before the first one: a client per merchant
 * (its CA and key, without connecting) and the mirror (an existing file is opened and closed; a
 * missing one needs only a folder it can be created in, and is not created). `cardsync schedule`
 * calls it at start-up, so a broken configuration is exit 2 there rather than a failed run on
 * every tick.
 * @throws UsageError (exit 2) naming what is wrong, as a run would.
 */
export async function checkJobSetup(config: JobConfig, logger: Logger): Promise<void> {
  const { close } = buildSources(config, logger);
  await close();
  if (existsSync(config.db)) {
    await openMirrorOrExit(config.db, config.origins.db).close();
    return;
  }
  const problem = writeProblem(dirname(config.db));
  if (problem !== undefined)
    throw new UsageError(
      `${config.origins.db}: expected a mirror this user can create, cannot create ${config.db} (${problem})`,
    );
}
