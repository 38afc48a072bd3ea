import path from 'node:path';
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
    // A worker runs file after file in one module graph: no test relies on a fresh module (each file makes its
    // own database and app), and starting a process per file cost about 0.4 s of each file's time.
    isolate: false,
    // Test files mostly wait on Postgres, spawned processes and short polls, not on the CPU: four run at a time
    // on two cores. Each file has its own cloned database.
    maxWorkers: 4,
    // `npm run test:coverage`: which lines of src/ and jobs/ the tests run.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'jobs/**/*.ts'],
      reporter: ['text-summary', 'html'],
    },
    // The processes tests start (the CLI, the roles) each compile the same modules again: Node keeps their
    // compiled code here between processes and runs, which spares about a tenth of each start's CPU.
    env: { NODE_COMPILE_CACHE: path.join(import.meta.dirname, 'node_modules', '.cache', 'node-compile') },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
