import type { RequestHandler } from 'express';
import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Reads } from '../db/readPool.ts';
import type { Logger } from '../logger.ts';
import type { Boss } from '../queue/boss.ts';
import type { JobDefinition } from '../queue/job.ts';
import type { Metrics } from './metrics.ts';

/** What the Express app and its routes are built from: no ports, no globals. */
export type AppDeps = {
  config: Config;
  pool: Pool;
  /** Where lag-tolerant GETs read: `reads.pool` (a replica when one is configured and within its lag). */
  reads: Reads;
  boss: Boss;
  log: Logger;
  metrics: Metrics;
  jobs: readonly JobDefinition[];
  now: () => Date;
  /** The upload size and time budget of POST /api/bank-statements; unset, statement.ts's (tests make them small). */
  statementLimits?: { maxBytes?: number; parseBudgetMs?: number };
  /**
   * Test-only: runs first on every request, so the test suite can check each answer against the declaration
   * of the route that gave it (`declaredRouteOf`). Never set by a process.
   */
  checkResponses?: RequestHandler;
};
