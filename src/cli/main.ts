#!/usr/bin/env node
import { pipeWriter } from './pipe-writer.js';
import { runCli } from './program.js';

// Signal handlers go in before any command runs: a command announces readiness on stdout, and a
// SIGTERM that arrived between that line and a later `process.once` would kill the process with
// the default action instead of stopping it cleanly. A second signal forces the exit.
const stop = new AbortController();
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => {
    if (stop.signal.aborted) process.exit(code);
    stop.abort();
  });
}

const untilStopped = () =>
  new Promise<void>((resolve) => {
    if (stop.signal.aborted) resolve();
    else stop.signal.addEventListener('abort', () => resolve(), { once: true });
  });

const code = await runCli(process.argv.slice(2), {
  stdout: pipeWriter(process.stdout),
  // A stderr that cannot be written (a log file on a full disk) has nowhere to say so: its lines
  // are dropped, as the logger's are, and the command goes on to its own exit code.
  stderr: pipeWriter(process.stderr, () => {}),
  untilStopped,
  signal: stop.signal,
  env: process.env,
  cwd: process.cwd(),
  stderrIsTTY: process.stderr.isTTY === true,
});
process.exitCode = code;
