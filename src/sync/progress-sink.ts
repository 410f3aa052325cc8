/** Where a sync reports how far it got, for a terminal display or nowhere. */
export interface ProgressSink {
  /** More rows are now known to be expected (a window's first page reported its total). */
  expect(rows: number): void;
  /** Rows fetched and committed. */
  advance(rows: number): void;
  /** A window finished. */
  windowDone(): void;
  /** The merchant or phase being worked on. */
  phase(label: string): void;
}

/** A sink that ignores everything. */
export const SILENT_PROGRESS: ProgressSink = {
  expect: () => {},
  advance: () => {},
  windowDone: () => {},
  phase: () => {},
};
