import { useBigintParser } from '../../src/db/pool.ts';

// What every Tally process does at start-up before it reads a row, done once in each test worker (vitest
// `setupFiles`): tests build apps, workers and pools in-process, so no role's entry point runs for them.
useBigintParser();
