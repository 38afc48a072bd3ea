// Part two of `npm run bench:year`: the retention purge of a month of bodies on the year's raw log while the
// web role takes a fixed-rate load, against the same load before and after the purge (same run, same web).
import { freePort } from '../src/db/embedded.ts';
import { createPool } from '../src/db/pool.ts';
import type { Logger } from '../src/logger.ts';
import { purgeBodies } from '../src/retention/purgeBodies.ts';
import { type Fixed, type Load, runFixedRate, startRole, stopRoles } from './ingestTopology.ts';

export type PurgeUnderLoad = {
  purged: number;
  seconds: number;
  before: Fixed;
  after: Fixed;
  during: Fixed[];
  /** p99 during the purge (the mean of its chunks') over the mean p99 before and after. */
  p99Ratio: number;
  worstChunkRatio: number;
};

/** Purges the bodies of deliveries received before `cutoff` while the web role takes `rate` requests a second. */
export async function purgeUnderLoad(
  connectionString: string,
  log: Logger,
  load: Load,
  rate: number,
  cutoff: Date,
): Promise<PurgeUnderLoad> {
  const port = await freePort();
  const env = { DATABASE_URL: connectionString, WEBHOOK_SECRETS: load.secret, PORT: String(port) };
  const web = await startRole('src/processes/web.ts', env);
  const url = `http://127.0.0.1:${port}`;
  const pool = createPool(connectionString, log, 2);
  try {
    await runFixedRate(url, { ...load, seconds: 2 }, rate); // warm-up
    const before = await runFixedRate(url, load, rate);
    const during: Fixed[] = [];
    let purging = true;
    const loadWhilePurging = (async () => {
      while (purging) during.push(await runFixedRate(url, load, rate));
    })();
    const started = performance.now();
    let reported = 0;
    const purged = await purgeBodies(pool, {
      cutoff,
      now: () => new Date(),
      onBatch: ({ events }) => {
        if (events - reported < 100_000) return;
        reported = events;
        process.stderr.write(
          `  purged ${events} bodies in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
        );
      },
    }).finally(() => {
      purging = false;
    });
    const seconds = (performance.now() - started) / 1000;
    await loadWhilePurging;
    const after = await runFixedRate(url, load, rate);
    const base = (before.latency.p99 + after.latency.p99) / 2;
    // Every chunk sends the same number of requests: the weighted mean is the plain mean.
    const meanDuring = during.reduce((sum, chunk) => sum + chunk.latency.p99, 0) / Math.max(1, during.length);
    return {
      purged: purged.events,
      seconds,
      before,
      after,
      during,
      p99Ratio: meanDuring / base,
      worstChunkRatio: Math.max(...during.map((chunk) => chunk.latency.p99)) / base,
    };
  } finally {
    await pool.end();
    await stopRoles([web]);
  }
}
