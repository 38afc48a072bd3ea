import type { Db } from 'pg-boss';
import { PgBoss } from 'pg-boss';
import type { Queryable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';

export type Boss = PgBoss;

export function createBoss(connectionString: string, log: Logger, options: { max?: number } = {}): Boss {
  const boss = new PgBoss({
    connectionString,
    max: options.max ?? 5,
    application_name: 'tally-queue',
    // Jobs of a worker that died mid-run are found (past their expiry) and retried within seconds.
    superviseIntervalSeconds: 10,
    // Queue depth (GET /api/status, tally_queue_depth) is pg-boss's own count: recount it every pass, not each minute.
    monitorIntervalSeconds: 10,
  });
  boss.on('error', (err) => log.error(err, 'pg-boss failed'));
  return boss;
}

/** Lets pg-boss write its job row inside the caller's transaction. */
export function inTransaction(client: Queryable): Db {
  return { executeSql: (text, values) => client.query(text, values as unknown[]) };
}
