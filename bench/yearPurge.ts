// Part two of `npm run bench:year`: the retention purge of a month of bodies on the year's raw log while the
// web role takes a fixed-rate load. The load runs in chunks that alternate between the purge running and the
// purge held (stopped after its current batch; the next chunk's purge goes on where it stopped), so the
// baseline is measured in the same run, at the same times, on the same database and web process: on a
// shared machine the load average moves within minutes, and a baseline taken only before and after the
// purge moved with it.
import { freePort } from '../src/db/embedded.ts';
import { createPool } from '../src/db/pool.ts';
import type { Logger } from '../src/logger.ts';
import { purgeBodies } from '../src/retention/purgeBodies.ts';
import { type Fixed, type Load, runFixedRate, startRole, stopRoles } from './ingestTopology.ts';
import { purgePacingStats } from './purgePacingStats.ts';

export type PurgeUnderLoad = {
  purged: number;
  /** The time the purge ran, its held chunks left out. */
  seconds: number;
  /** Chunks with the purge held: the first before it starts, the last after it ends. */
  without: Fixed[];
  /** Chunks with the purge running from start to end. */
  during: Fixed[];
  /** The last chunk, when the purge ended before it did (shown, not counted in the ratios). */
  ended: Fixed | null;
  /** The mean p99 of the chunks during the purge over the mean p99 of the chunks without it. */
  p99Ratio: number;
  worstChunkRatio: number;
  /** What the purge's pacing did (purgePacingStats.ts). */
  pacing: string;
};

/** Thrown from the purge's progress callback to stop it after the batch that just committed. */
class PurgeHeld extends Error {}

const meanP99 = (chunks: Fixed[]) =>
  chunks.reduce((sum, chunk) => sum + chunk.latency.p99, 0) / Math.max(1, chunks.length);

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
  const pacing = purgePacingStats();
  const without: Fixed[] = [];
  const during: Fixed[] = [];
  let ended: Fixed | null = null;
  let purged = 0;
  let seconds = 0;
  let reported = 0;
  try {
    await runFixedRate(url, { ...load, seconds: 2 }, rate); // warm-up
    without.push(await runFixedRate(url, load, rate));
    while (ended === null) {
      let held = false;
      let finished = false;
      let runEvents = 0;
      const started = performance.now();
      const purging = purgeBodies(pool, {
        cutoff,
        now: () => new Date(),
        onBatch: ({ events }, batch) => {
          pacing.record(batch);
          runEvents = events;
          if (purged + events - reported >= 100_000) {
            reported = purged + events;
            process.stderr.write(
              `  purged ${reported} bodies in ${(seconds + (performance.now() - started) / 1000).toFixed(0)} s\n`,
            );
          }
          if (held) throw new PurgeHeld();
        },
      }).then(
        () => {
          finished = true;
        },
        (err: unknown) => {
          if (!(err instanceof PurgeHeld)) throw err;
        },
      );
      const chunk = await runFixedRate(url, load, rate);
      held = true;
      await purging;
      seconds += (performance.now() - started) / 1000;
      purged += runEvents;
      if (finished) ended = chunk;
      else during.push(chunk);
      without.push(await runFixedRate(url, load, rate));
    }
    // A purge shorter than one chunk leaves nothing but its partial chunk to compare.
    const counted = during.length > 0 ? during : [ended];
    const base = meanP99(without);
    return {
      purged,
      seconds,
      without,
      during,
      ended,
      p99Ratio: meanP99(counted) / base,
      worstChunkRatio: Math.max(...counted.map((chunk) => chunk.latency.p99)) / base,
      pacing: pacing.describe(),
    };
  } finally {
    await pool.end();
    await stopRoles([web]);
  }
}
