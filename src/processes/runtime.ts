import { jobs } from '../../jobs/index.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { createReads, type Reads, readsFromPrimary } from '../db/readPool.ts';
import { createLogger, type Logger } from '../logger.ts';
import { type Boss, createBoss } from '../queue/boss.ts';
import { createQueues } from '../queue/job.ts';
import { startTracing } from '../tracing/tracing.ts';

export type Runtime = {
  config: Config;
  log: Logger;
  /** The database the pool and pg-boss use, for a role that needs a pool of its own (web's metrics pool). */
  connectionString: string;
  pool: Pool;
  reads: Reads;
  boss: Boss;
  close: () => Promise<void>;
};

/** Reads the configuration or exits listing every problem: a bad config never half-starts. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

/**
 * Logs why the process cannot go on and exits 1. The reason is also written to stderr as one plain line:
 * a failed release step or start is read by a person in a deploy log, not by the log pipeline.
 */
export function exitWithError(log: Logger, err: unknown, what: string): never {
  log.fatal(err, what);
  process.stderr.write(`${what}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

/**
 * Opens the pool and pg-boss against a migrated database and makes sure every queue exists. With
 * DATABASE_READ_URL set, also the replica's pool and its lag check, unless `readsReplica` is false (the clock
 * reads nothing).
 */
export async function openRuntime(
  config: Config,
  log: Logger,
  connectionString: string,
  { readsReplica = true } = {},
): Promise<Runtime> {
  const stopTracing = startTracing(process.env, log);
  const pool = createPool(connectionString, log);
  const reads =
    config.DATABASE_READ_URL && readsReplica
      ? createReads({
          primary: pool,
          replicaUrl: config.DATABASE_READ_URL,
          maxLagSeconds: config.READ_MAX_LAG_SECONDS,
          log,
        })
      : readsFromPrimary(pool);
  const boss = createBoss(connectionString, log);
  await boss.start();
  await createQueues(boss, jobs);
  return {
    config,
    log,
    connectionString,
    pool,
    reads,
    boss,
    close: async () => {
      await boss.stop({ graceful: true, timeout: 20_000 });
      await reads.close();
      await pool.end();
      await stopTracing?.();
    },
  };
}

/** Runs the shutdown steps once, in order, on SIGINT or SIGTERM; a second signal exits at once. */
export function onShutdown(log: Logger, steps: (() => Promise<void>)[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    for (const step of steps) {
      await step().catch((err: unknown) => log.error(err, 'shutdown step failed'));
    }
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** Entry point of a single Procfile role (web, worker, clock) against DATABASE_URL. */
export async function runRole(
  role: string,
  start: (runtime: Runtime) => Promise<(() => Promise<void>) | undefined>,
  options: { readsReplica?: boolean } = {},
) {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL).child({ role });
  if (!config.DATABASE_URL) {
    log.fatal(
      `DATABASE_URL is not set: the ${role} process needs one (use npm start for the all-in-one local run)`,
    );
    process.exit(1);
  }
  try {
    const runtime = await openRuntime(config, log, config.DATABASE_URL, options);
    const stop = await start(runtime);
    onShutdown(log, [...(stop ? [stop] : []), runtime.close]);
  } catch (err) {
    exitWithError(log, err, `${role} failed to start`);
  }
}
