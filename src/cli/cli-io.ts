/** What a command may do to the outside world, passed in so commands stay testable. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves on the first SIGINT or SIGTERM. */
  untilStopped(): Promise<void>;
  /** Aborted on the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The environment variables (job-interface.md names them). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths resolve. */
  readonly cwd: string;
  /** True when stderr is a terminal: progress is drawn there. */
  readonly stderrIsTTY: boolean;
}
