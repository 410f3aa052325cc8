import { readdir } from 'node:fs/promises';
import { UsageError } from './exit-codes.js';

/** What a sandbox writes into its state directory: its database, its CA, journals, manifest. */
function isSandboxEntry(name: string): boolean {
  return (
    name.startsWith('sandbox.sqlite') ||
    name === 'tls' ||
    name === 'ground-truth.json' ||
    /^journal-.*\.csv$/.test(name)
  );
}

/**
 * Refuse (exit 2) a `--state-dir` that holds something other than a sandbox's state, before the
 * sandbox writes its sandbox.sqlite and tls/ beside someone else's files. A missing or empty
 * folder, or one holding a sandbox.sqlite (checked when opened), is left to the sandbox.
 * @example await checkSandboxStateDir('/var/lib/cardsync') // throws: it holds mirror.sqlite
 */
export async function checkSandboxStateDir(stateDir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(stateDir);
  } catch {
    // Missing, a file, or unreadable: making or opening it names the problem with its code.
    return;
  }
  if (entries.includes('sandbox.sqlite')) return;
  const foreign = entries.filter((name) => !isSandboxEntry(name)).sort();
  if (foreign.length === 0) return;
  const shown = foreign.length > 3 ? [...foreign.slice(0, 3), '...'] : foreign;
  throw new UsageError(
    `--state-dir ${stateDir}: expected a missing or empty folder, or a sandbox's state, it holds ${shown.join(', ')}`,
  );
}
