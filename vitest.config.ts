import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The writer thread and the CLI run from dist/: rebuilt first when older than src/.
    globalSetup: ['test/support/built-dist.ts'],
  },
});
