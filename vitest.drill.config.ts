import { defineConfig } from 'vitest/config';

// The crash drill alone (`npm run drill:crash`, run by .ci/run): minutes of load on two spawned processes,
// which would take npm test past its 10 minutes on two cores. Same setup as vitest.config.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.drill.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
