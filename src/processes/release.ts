import pg from 'pg';
import { keepMovementDaysIn } from '../close/keepMovementDays.ts';
import { runBackfills } from '../db/backfill.ts';
import { BACKFILLS } from '../db/backfills.ts';
import { migrate } from '../db/migrate.ts';
import { useBigintParser } from '../db/pool.ts';
import { createLogger } from '../logger.ts';
import { createBoss } from '../queue/boss.ts';
import { exitWithError, loadConfigOrExit } from './runtime.ts';

/**
 * Applies Tally's migrations, runs the backfills in batches, keeps the close's days in `businessTimeZone` when
 * given (keepMovementDaysIn) and installs pg-boss's schema: the Procfile's `release` step. `migrationsDir` is the
 * repository's migrations unless a benchmark points it at a copy that holds a throwaway migration of its own
 * (bench/yearMigration.ts).
 */
export async function release(
  connectionString: string,
  log = createLogger('info'),
  { migrationsDir, businessTimeZone }: { migrationsDir?: string; businessTimeZone?: string } = {},
): Promise<void> {
  await migrate(connectionString, log, migrationsDir);
  await runBackfills(connectionString, log, BACKFILLS);
  if (businessTimeZone !== undefined) {
    // Counting a year of payments takes longer than the application pool's statement timeout.
    const pool = new pg.Pool({ connectionString, max: 1 });
    await keepMovementDaysIn(pool, businessTimeZone, log).finally(() => pool.end());
  }
  // pg-boss creates or upgrades its own schema on start, under its own lock.
  const boss = createBoss(connectionString, log, { max: 1 });
  await boss.start();
  await boss.stop({ graceful: false });
}

if (import.meta.main) {
  useBigintParser();
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  if (!config.DATABASE_URL) {
    log.fatal(
      'DATABASE_URL is not set: `npm run migrate` needs the database to migrate (npm start migrates its embedded one)',
    );
    process.exit(1);
  }
  // A database migrated past this code is refused here too, which stops a deploy before any role starts.
  await release(config.DATABASE_URL, log, { businessTimeZone: config.BUSINESS_TIME_ZONE }).catch(
    (err: unknown) => exitWithError(log, err, 'release failed'),
  );
  log.info('release done');
}
