import { createLogger } from '../../log/logger.js';
import type { CliIo } from '../cli-io.js';
import { type RunFlags, runConfigFlags } from '../commands/run-command.js';
import { ExitError } from '../exit-codes.js';
import { loadConfig } from '../job-setup.js';
import { nightlyJob } from '../nightly-job.js';
import { checkOutputDirs } from '../output-dirs.js';
import { formatRunSummary, runExitMessage, runJson } from '../run-summary.js';

/** The body of `cardsync run`: one nightly job, its summary, and its exit code. */
export async function runAction(io: CliIo, flags: RunFlags): Promise<void> {
  const config = await loadConfig(io, runConfigFlags(flags), true);
  checkOutputDirs(config);
  const logger = createLogger({ level: flags.logLevel ?? (io.stderrIsTTY ? 'warn' : 'info') });
  try {
    const outcome = await nightlyJob(io, config, {
      failOn: flags.failOn,
      progress: io.stderrIsTTY && flags.progress,
      logger,
    });
    const { result } = outcome;
    if (result)
      io.stdout(
        flags.json ? `${JSON.stringify(runJson(result))}\n` : formatRunSummary(result, config.db),
      );
    if (outcome.error) throw outcome.error;
    if (result && outcome.exitCode !== 0)
      throw new ExitError(outcome.exitCode, runExitMessage(result, flags.failOn, config.merchants));
  } finally {
    logger.flush();
  }
}
