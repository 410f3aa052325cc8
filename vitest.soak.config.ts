import { defineConfig } from 'vitest/config';

/** `npm run soak`: the randomized long runs of test/soak/, not part of `npm test`. */
export default defineConfig({
  test: {
    include: ['test/soak/**/*.soak.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
