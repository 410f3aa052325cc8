import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is a file per core but one; on two cores, one at a time. Most files wait
    // on child processes and HTTPS, so two at a time there took the suite from 510 s to 318 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The writer thread and the CLI run from dist/: rebuilt first when older than src/.
    globalSetup: ['test/support/built-dist.ts'],
  },
});
