/** Why a file a setting names could not be read, as a message puts it in parentheses or after "is". */
export class SettingFileError extends Error {
  readonly code = 'SETTING_FILE_UNREADABLE';
  /** `ENOENT`, `EACCES`, `EISDIR` (a folder) when the file could not be opened as one. */
  readonly errno: string | undefined;
  /** `a FIFO, not a regular file`, `larger than 65536 bytes` for a file that opened. */
  readonly problem: string | undefined;

  constructor(errno: string | undefined, problem: string | undefined) {
    super(errno ?? problem ?? 'unreadable');
    this.name = 'SettingFileError';
    this.errno = errno;
    this.problem = problem;
  }

  /**
   * Why `subject` could not be used, for a message: `cannot read /etc/x.pem (ENOENT)`, or
   * `/etc/x.pem is a FIFO, not a regular file`.
   */
  reason(subject: string): string {
    return this.problem === undefined
      ? `cannot read ${subject} (${this.errno})`
      : `${subject} is ${this.problem}`;
  }
}
