import { parseArgs } from 'node:util';
import { createPool } from '../db/pool.ts';
import { DAY_MS } from '../domain/days.ts';
import { purgeBodies } from '../retention/purgeBodies.ts';
import { countPurgeable } from '../retention/queries.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { createProgress } from './progress.ts';
import { usages } from './usages.ts';

/**
 * The retention purge now, with any age: empties the raw and parsed bodies of finished deliveries (and
 * their conflicting bodies) received more than DAYS days ago, in small batches. `--dry-run` only counts.
 * Stopped and run again, it goes on where it stopped.
 */
export async function purgeCommand(args: string[], { config, log }: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'older-than': { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
  });
  const days = values['older-than'];
  if (days === undefined || !/^[1-9]\d*$/.test(days))
    throw new Error(`--older-than must be a positive whole number of days; usage: ${usages.purge}`);
  const cutoff = new Date(Date.now() - Number(days) * DAY_MS);
  const pool = createPool(await resolveDatabaseUrl(config), log, 2);
  try {
    const purgeable = await countPurgeable(pool, cutoff);
    const what = `${purgeable.events} deliveries and ${purgeable.conflicts} conflicting bodies received before ${cutoff.toISOString()}`;
    if (values['dry-run']) {
      process.stdout.write(`would purge the bodies of ${what}\n`);
      return 0;
    }
    const progress = createProgress(purgeable.events + purgeable.conflicts);
    const purged = await purgeBodies(pool, {
      cutoff,
      now: () => new Date(),
      onBatch: (done) =>
        progress.update(
          done.events + done.conflicts,
          `deliveries ${done.events} conflicts ${done.conflicts}`,
        ),
    });
    progress.finish();
    process.stdout.write(
      `purged the bodies of ${purged.events} deliveries and ${purged.conflicts} conflicting bodies received before ${cutoff.toISOString()}\n`,
    );
    return 0;
  } finally {
    await pool.end();
  }
}
