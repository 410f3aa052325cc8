/** What a command may do to the outside world, passed in so commands stay testable. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves on the first SIGINT or SIGTERM. */
  untilStopped(): Promise<void>;
}
