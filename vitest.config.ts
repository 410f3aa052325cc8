import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const TESTS = ['test/**/*.test.ts', 'src/**/*.test.ts'];
/** Files that replace a module with `vi.mock`: they need a module graph of their own. */
const MOCKING = ['test/cli/place-new-file.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is a file per core but one; on two cores, one at a time. Most files wait
    // on child processes and HTTPS, so two at a time there took the suite from 510 s to 318 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The writer thread and the CLI run from dist/: rebuilt first when older than src/.
    globalSetup: ['test/support/built-dist.ts'],
    projects: [
      {
        extends: true,
        // A file per worker process in turn, its modules loaded once: loading them again for
        // each of the 221 files was a third of the suite's time on two cores (663 s, 458 s shared).
        // The tests leave no state behind them (they restore timers, spies and the environment
        // they change), so sharing costs no independence.
        test: { name: 'shared', include: TESTS, exclude: MOCKING, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING } },
    ],
  },
});
