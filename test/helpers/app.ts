import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.ts';
import { createApp } from '../../src/api/app.ts';
import { createMetrics } from '../../src/api/metrics.ts';
import { startChangeSequencing } from '../../src/changes/sequencingLoop.ts';
import { loadConfig } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { createReads, readsFromPrimary } from '../../src/db/readPool.ts';
import { createLogger } from '../../src/logger.ts';
import { startEventProcessing } from '../../src/projection/processingLoop.ts';
import { createBoss } from '../../src/queue/boss.ts';
import type { JobDefinition } from '../../src/queue/job.ts';
import { createQueues } from '../../src/queue/job.ts';
import { startWorkers } from '../../src/queue/workers.ts';
import { createTestDatabase } from './database.ts';
import { checkResponses } from './responseCheck.ts';

export const SECRETS = [
  'whsec_current_0123456789_abcdefghij',
  'whsec_previous_0123456789_abcdefghi',
] as const;
export const API_TOKEN = 'test-api-token-0123456789';

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/** The real app on its own cloned database; logs are kept in memory so tests can read them. */
export async function startTestApp(
  options: {
    env?: Record<string, string | undefined>;
    now?: () => Date;
    jobs?: readonly JobDefinition[];
    databaseUrl?: string;
    poolUrl?: string;
    /** Runs the real pg-boss workers in this process too (all queues, or those named). */
    worker?: boolean;
    workerJobs?: string[];
    /**
     * Webhook secrets given to the app as they are, past the boot check: the provider SDK's test key
     * (`justifi-test-key`) is shorter than WEBHOOK_SECRETS allows, yet its vector must verify.
     */
    webhookSecrets?: string[];
    /** Small upload and time limits for POST /api/bank-statements. */
    statementLimits?: { maxBytes?: number; parseBudgetMs?: number };
    /** How often the replica's lag is checked when `env` sets DATABASE_READ_URL (tests check often). */
    lagCheckIntervalMs?: number;
  } = {},
) {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  const loaded = loadConfig({
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRETS: SECRETS.join(','),
    API_TOKEN,
    LOG_LEVEL: 'debug',
    // The console's cookie is Secure only over HTTPS, so the tests' plain-HTTP cookie jars keep it.
    NODE_ENV: 'test',
    ...options.env,
  });
  const config = options.webhookSecrets
    ? Object.freeze({ ...loaded, WEBHOOK_SECRETS: options.webhookSecrets })
    : loaded;
  const logLines: string[] = [];
  // Kept in memory for the test, and in the run's log directory for the scan at the end of the run.
  const logFile = createWriteStream(
    path.join(inject('logDir'), `app-${process.pid}-${randomBytes(4).toString('hex')}.log`),
  );
  const log = createLogger(
    config.LOG_LEVEL,
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        logFile.write(chunk);
        done();
      },
    }),
  );
  const pool = createPool(options.poolUrl ?? databaseUrl, log);
  const reads = config.DATABASE_READ_URL
    ? createReads({
        primary: pool,
        replicaUrl: config.DATABASE_READ_URL,
        maxLagSeconds: config.READ_MAX_LAG_SECONDS,
        log,
        checkIntervalMs: options.lagCheckIntervalMs,
      })
    : readsFromPrimary(pool);
  // Two connections carry a test app's pg-boss (its polls, completions and upkeep) without a wait worth
  // measuring; each connection the run does not open spares Postgres a backend's start and warm-up.
  const boss = createBoss(databaseUrl, log, { max: 2 });
  await boss.start();
  const jobs = options.jobs ?? allJobs;
  await createQueues(boss, jobs);
  const now = options.now ?? (() => new Date());
  // Each scrape collects afresh, so a test sees what it just changed (test/observability/metrics.test.ts
  // covers the cache); the app's one pool stands in for the web role's metrics pool.
  const app = createApp({
    config,
    pool,
    reads,
    boss,
    log,
    metrics: createMetrics(pool, boss, { freshForMs: 0, reads }),
    jobs,
    now,
    statementLimits: options.statementLimits,
    checkResponses,
  });
  const workerJobs = jobs.filter((job) => !options.workerJobs || options.workerJobs.includes(job.name));
  // Deliveries are projected by a loop that claims them from the raw log, named `process-event` like a queue.
  const processDeliveries =
    options.worker && (!options.workerJobs || options.workerJobs.includes('process-event'));
  const stopProcessing = processDeliveries ? startEventProcessing({ pool, boss, log }) : async () => {};
  const stopSequencing = processDeliveries ? startChangeSequencing({ pool, log }) : async () => {};
  if (options.worker) await startWorkers({ pool, reads, boss, config, log, now }, workerJobs);
  return {
    app,
    pool,
    reads,
    boss,
    log,
    config,
    databaseUrl,
    logLines,
    jobs,
    now,
    close: async () => {
      await stopProcessing();
      await stopSequencing();
      await boss.stop({ graceful: false });
      await reads.close();
      await pool.end();
      await new Promise((resolve) => logFile.end(resolve));
    },
  };
}
