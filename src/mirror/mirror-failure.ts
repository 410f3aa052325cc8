import { causeChain, textCode } from '../error-causes.js';

/** How the mirror's storage failed: it could not be written, or it is damaged. */
export type MirrorFailureKind = 'unwritable' | 'damaged';

/** A failure of the mirror's file rather than of cardsync: SQLite's code and message. */
export interface MirrorFailure {
  readonly kind: MirrorFailureKind;
  /** SQLite's (extended) code, e.g. `SQLITE_FULL`, `SQLITE_IOERR_WRITE`, `SQLITE_CORRUPT`. */
  readonly code: string;
  readonly message: string;
}

/**
 * SQLite's result codes that say the file, not the statement, failed: a full disk or a file
 * size limit (SQLITE_FULL, and SQLITE_IOERR_WRITE for EFBIG), an I/O error, a file that turned
 * read-only or vanished; or a damaged file. Their extended codes share the prefix.
 */
const KINDS: readonly (readonly [string, MirrorFailureKind])[] = [
  ['SQLITE_FULL', 'unwritable'],
  ['SQLITE_IOERR', 'unwritable'],
  ['SQLITE_READONLY', 'unwritable'],
  ['SQLITE_CANTOPEN', 'unwritable'],
  ['SQLITE_CORRUPT', 'damaged'],
  ['SQLITE_NOTADB', 'damaged'],
];

/**
 * The failure of the mirror's storage that `error`, or an error it was caused by, reports (a
 * SqliteError of this thread, or one the writer thread passed on with its code); undefined for
 * any other error.
 */
export function mirrorFailureOf(error: unknown): MirrorFailure | undefined {
  for (const e of causeChain(error)) {
    const code = textCode(e);
    const kind = code === undefined ? undefined : KINDS.find(([p]) => code.startsWith(p))?.[1];
    if (code !== undefined && kind) return { kind, code, message: e.message };
  }
  return undefined;
}
