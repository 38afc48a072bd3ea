import { defineConfig } from 'vitest/config';

// The benchmarks run small (`npm run test:bench`, run by .ci/run after npm test): each is a whole process that
// starts its own Postgres, so they need no shared database and check that each bench still runs, not a figure.
export default defineConfig({
  test: {
    include: ['test/bench/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
