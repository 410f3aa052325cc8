/** What went wrong with the mirror file. */
export type MirrorErrorCode =
  | 'MIRROR_UNOPENABLE'
  | 'MIRROR_FOREIGN'
  | 'MIRROR_READ_ONLY'
  | 'MIRROR_TOO_NEW'
  | 'MIRROR_MIGRATION_FAILED'
  | 'MIRROR_LOCKED';

/** A failure of the SQLite mirror, with a code callers branch on. */
export class MirrorError extends Error {
  readonly code: MirrorErrorCode;

  constructor(code: MirrorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MirrorError';
    this.code = code;
  }
}
