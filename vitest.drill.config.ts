import { defineConfig } from 'vitest/config';

// The drills (`npm run drills`, run by .ci/run): real-time waits (kill -9 under load, a 30 s database outage,
// heartbeat expiry) that would double npm test's time on two cores. Same setup as vitest.config.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.drill.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    setupFiles: ['test/helpers/startup.ts', 'test/helpers/responseCheckSetup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
