import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The benchmarks, run small, are `npm run test:bench` (vitest.bench.config.ts): they check no correctness.
    exclude: [...configDefaults.exclude, 'test/bench/**'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    // The start-up every process does (startup.ts), then the failure of a test whose app answered outside a
    // route's declaration (test apps check every answer: helpers/responseCheck.ts).
    setupFiles: ['test/helpers/startup.ts', 'test/helpers/responseCheckSetup.ts'],
    pool: 'forks',
    // Each of the four worker processes runs file after file with the modules it already loaded: loading the
    // app's modules anew for each of the 135 files took about a fifth of the run. Every file still has its own
    // database, app and pools (test/helpers/app.ts), and nothing a test relies on is kept in module state.
    isolate: false,
    // Test files mostly wait on Postgres, spawned processes and short polls, not on the CPU: four at a time
    // take npm test from about 4 to about 2 minutes on two cores. Each file has its own cloned database.
    maxWorkers: 4,
    // `npm run test:coverage`: which lines of src/ and jobs/ the tests run.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'jobs/**/*.ts'],
      reporter: ['text-summary', 'html'],
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
