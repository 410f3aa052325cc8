#!/usr/bin/env node
import { EXIT } from './exit-codes.js';
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

// A stderr that cannot be written (a log file on a full disk) has nowhere to say so: its lines
// are dropped, as the logger's are, and the command goes on to its own exit code.
const stderr = pipeWriter(process.stderr, () => {});
// A stdout that cannot be written (a file on a full disk; a reader gone is no failure) lost the
// command's output: one line says so once the command has ended, after its JSON log lines, and
// a command that would have ended 0 ends 1. The error may be reported after the end: it comes
// from the stream, a turn after the write.
let ended = false;
let stdoutLost: Error | undefined;
const sayStdoutLost = () => {
  stderr(`cardsync: cannot write stdout: ${stdoutLost?.message}\n`);
  if (!process.exitCode) process.exitCode = EXIT.INTERNAL;
};
const stdout = pipeWriter(process.stdout, (error) => {
  stdoutLost = error;
  if (ended) sayStdoutLost();
});

const code = await runCli(process.argv.slice(2), {
  stdout,
  stderr,
  untilStopped,
  signal: stop.signal,
  env: process.env,
  cwd: process.cwd(),
  stderrIsTTY: process.stderr.isTTY === true,
});
process.exitCode = code;
ended = true;
if (stdoutLost) sayStdoutLost();
