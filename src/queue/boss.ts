import type { Db } from 'pg-boss';
import { PgBoss } from 'pg-boss';
import type { Queryable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { JobDefinition } from './job.ts';

export type Boss = PgBoss;

export function createBoss(connectionString: string, log: Logger, options: { max?: number } = {}): Boss {
  const boss = new PgBoss({
    connectionString,
    max: options.max ?? 5,
    application_name: 'tally-queue',
    // Jobs of a worker that died mid-run are found (past their expiry) and retried within seconds.
    superviseIntervalSeconds: 10,
  });
  boss.on('error', (err) => log.error(err, 'pg-boss failed'));
  return boss;
}

/**
 * Creates every queue Tally uses, or brings an existing one's retry and expiry options up to date (its
 * policy and maximum retry delay are fixed at creation); safe to repeat, so each process does it at start.
 */
export async function createQueues(boss: Boss, jobs: readonly JobDefinition[]): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
  for (const job of jobs) {
    if (!existing.has(job.name)) {
      await boss.createQueue(job.name, job.queue);
    } else if (job.queue) {
      const { policy: _policy, retryDelayMax: _max, ...options } = job.queue;
      await boss.updateQueue(job.name, options);
    }
  }
}

/** Lets pg-boss write its job row inside the caller's transaction. */
export function inTransaction(client: Queryable): Db {
  return { executeSql: (text, values) => client.query(text, values as unknown[]) };
}
