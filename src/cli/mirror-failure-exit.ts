import { mirrorFailureOf } from '../mirror/mirror-failure.js';
import { EXIT, ExitError } from './exit-codes.js';

/**
 * The exit for an error of the mirror's storage (docs/operations.md, exit codes), or undefined
 * for any other error. One that could not be written (a full disk, an I/O error, a file made
 * read-only) while syncing is exit 4: every window landed before it is committed with its
 * progress, and the next run resumes once the mirror can be written. Elsewhere (reconcile,
 * an import) it is exit 1 naming the mirror, as a report that cannot be written is. A damaged
 * file is exit 1 wherever it is found: the next run would meet it again, so it needs a person.
 */
export function mirrorFailureExit(
  error: unknown,
  mirror: { readonly file?: string | undefined; readonly syncing: boolean },
): ExitError | undefined {
  if (error instanceof ExitError) return undefined;
  const failure = mirrorFailureOf(error);
  if (!failure) return undefined;
  const file = mirror.file === undefined ? 'the mirror' : `the mirror ${mirror.file}`;
  const sqlite = `${failure.message} (${failure.code})`;
  if (failure.kind === 'damaged') {
    const check = mirror.file === undefined ? '' : ` with sqlite3 ${mirror.file}`;
    return new ExitError(
      EXIT.INTERNAL,
      `${file} is damaged: ${sqlite}; check it${check} "PRAGMA integrity_check", then restore it from a backup or move it aside (with its -wal and -shm files) for the next run to sync afresh`,
      { cause: error },
    );
  }
  if (mirror.syncing)
    return new ExitError(
      EXIT.SYNC_INCOMPLETE,
      `sync incomplete: cannot write ${file}: ${sqlite}; what was landed is committed, and the next run resumes once the mirror can be written (disk space, file size limit)`,
      { cause: error },
    );
  return new ExitError(
    EXIT.INTERNAL,
    `cannot write ${file}: ${sqlite}; free disk space or fix its permissions, then run again`,
    { cause: error },
  );
}
