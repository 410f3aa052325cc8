import { SandboxStateError } from '../sandbox/store/database.js';
import type { SandboxFlags } from './commands/sandbox-command.js';
import { UsageError } from './exit-codes.js';

/**
 * The usage error (exit 2) of a sandbox that could not start because of what its flags named:
 * a port in use or not allowed (`--port`), a host that does not resolve or is not this
 * machine's (`--host`), a state directory that cannot be made or does not hold a sandbox's state
 * (`--state-dir`). Undefined for any other error, which stays an internal one.
 */
export function sandboxStartError(
  error: unknown,
  flags: Pick<SandboxFlags, 'port' | 'host' | 'stateDir'>,
): UsageError | undefined {
  const { stateDir } = flags;
  if (error instanceof SandboxStateError)
    return new UsageError(`--state-dir ${stateDir}: ${error.message}`);
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string') return undefined;
  if (syscall === 'getaddrinfo')
    return new UsageError(
      `--host ${flags.host}: expected an address or a name that resolves (${code})`,
    );
  if (syscall === 'listen' && code === 'EADDRNOTAVAIL')
    return new UsageError(`--host ${flags.host}: expected an address of this machine (${code})`);
  if (syscall === 'listen' && code === 'EADDRINUSE')
    return new UsageError(
      `--port ${flags.port}: expected a free port, another process listens on it (${code}); 0 takes any free port`,
    );
  if (syscall === 'listen')
    return new UsageError(`--port ${flags.port}: cannot listen on it (${code})`);
  if (stateDir === undefined) return undefined;
  // With a state directory, every file the sandbox opens is in it (its sandbox.sqlite, CA,
  // journals and manifest); before, the folder itself is made.
  if (code.startsWith('SQLITE_'))
    return new UsageError(
      `--state-dir ${stateDir}: expected a sandbox's state in its sandbox.sqlite, cannot use it (${code})`,
    );
  if (path !== undefined)
    return new UsageError(
      `--state-dir ${stateDir}: expected a folder this user can write, cannot use ${path} (${code})`,
    );
  return undefined;
}
