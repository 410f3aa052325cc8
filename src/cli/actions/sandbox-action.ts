import { createLogger } from '../../log/logger.js';
import { FaultConfigError } from '../../sandbox/faults/fault-config-error.js';
import { loadFaultProfile } from '../../sandbox/faults/fault-profile.js';
import type { FaultRule } from '../../sandbox/faults/fault-rule.js';
import { parseFaultRule } from '../../sandbox/faults/parse-fault-rules.js';
import { startSandbox } from '../../sandbox/sandbox.js';
import { VERSION } from '../../version.js';
import type { CliIo } from '../cli-io.js';
import { DEFAULT_ANOMALIES, type SandboxFlags } from '../commands/sandbox-command.js';
import { UsageError } from '../exit-codes.js';
import { sandboxStartError } from '../sandbox-start-error.js';
import { checkSandboxStateDir } from '../sandbox-state-dir.js';

/** The body of `cardsync sandbox`: start the service, print its JSON line, stop on a signal. */
export async function sandboxAction(io: CliIo, flags: SandboxFlags): Promise<void> {
  if (
    flags.cards === undefined &&
    (flags.transactions !== undefined || flags.anomalies !== undefined)
  ) {
    throw new UsageError('--transactions and --anomalies need --cards');
  }
  const cards = flags.cards;
  if (cards !== undefined && flags.transactions !== undefined && flags.transactions < cards) {
    throw new UsageError(
      `--transactions must be at least --cards (${cards}): every card has its issuance FEE record`,
    );
  }
  const faults = [
    ...(flags.faults === undefined ? [] : await readProfile(flags.faults)),
    ...flags.fault.map((json, i) => inlineRule(json, i)),
  ];
  if (flags.stateDir !== undefined) await checkSandboxStateDir(flags.stateDir);
  const logger = createLogger({ level: flags.logLevel });
  const sandbox = await startSandbox({
    logger,
    signal: io.signal,
    port: flags.port,
    host: flags.host,
    seed: flags.seed,
    merchants: flags.merchants,
    currencies: flags.currency,
    stateDir: flags.stateDir,
    processingDelayMs: flags.processingDelay,
    failureRate: flags.failureRate,
    control: flags.control,
    rateLimitPerSecond: flags.rateLimit,
    faults,
    ...(cards === undefined
      ? {}
      : {
          world: {
            cards,
            transactions: flags.transactions ?? cards * 10,
            days: flags.days,
            anomaliesPerCode: flags.anomalies === true ? DEFAULT_ANOMALIES : (flags.anomalies ?? 0),
          },
        }),
    ...(flags.activityRate === undefined ? {} : { activityPerSecond: flags.activityRate }),
  }).catch((error: unknown) => {
    // Stopped while starting (a large world takes minutes to generate): a clean stop.
    if (io.signal.aborted && error === io.signal.reason) return undefined;
    throw sandboxStartError(error, flags) ?? error;
  });
  if (!sandbox) {
    logger.info('stopped before the sandbox was ready');
    logger.flush();
    return;
  }
  io.stdout(
    `${JSON.stringify({
      baseUrl: sandbox.baseUrl,
      caFile: sandbox.caFile,
      merchants: sandbox.merchants,
      groundTruthFile: sandbox.groundTruthFile,
      stateDir: sandbox.stateDir,
      controlToken: sandbox.controlToken,
      seed: sandbox.seed,
      version: VERSION,
    })}\n`,
  );
  await io.untilStopped();
  logger.info('stopping sandbox');
  await sandbox.close();
  logger.flush();
}

/** The rules of a fault profile; a bad file is a usage error naming the field. */
async function readProfile(file: string): Promise<FaultRule[]> {
  try {
    return await loadFaultProfile(file);
  } catch (error) {
    if (error instanceof FaultConfigError) {
      throw new UsageError(`--faults ${file}: ${error.problems.join('; ')}`);
    }
    throw error;
  }
}

/** A rule given inline with `--fault`; bad JSON or a bad field is a usage error naming it. */
function inlineRule(json: string, index: number): FaultRule {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError(`--fault #${index + 1} is not JSON: ${json}`);
  }
  try {
    return parseFaultRule(value, `--fault #${index + 1}`);
  } catch (error) {
    if (error instanceof FaultConfigError) throw new UsageError(error.problems.join('; '));
    throw error;
  }
}
