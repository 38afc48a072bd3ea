import { PgBoss } from 'pg-boss';
import type { z } from 'zod';
import type { Queryable } from '../db/pool.ts';
import { type Boss, inTransaction } from './boss.ts';
import { type QueueName, queues, type SentPayloads } from './queues.ts';

/** Where jobs are written: through pg-boss's own pool, or in the caller's transaction (they commit with it). */
export type QueueDb = Boss | { boss: Boss; client: Queryable };

export type EnqueueOptions = {
  /** A key for every job sent: the clock's `<queue>:<minute>`. */
  singletonKey?: string;
  /** With a singleton key: one job per key within each slot of this many seconds. */
  singletonSeconds?: number;
};

/**
 * Sends one job per payload, each parsed with the queue's schema first (a bad payload throws, and a
 * caller's transaction rolls back). Returns the ids of the jobs created; a job whose singleton key is
 * already taken is not created.
 */
export function enqueue<Name extends QueueName>(
  db: QueueDb,
  name: Name,
  payloads: readonly SentPayloads[Name][],
  options: EnqueueOptions = {},
): Promise<string[]> {
  // Widened for the untyped core: each payload is parsed by its own queue's schema.
  const queue = { name, ...queues[name] } as NamedQueue<unknown>;
  return enqueueTo(db, queue, payloads, options);
}

type NamedQueue<Payload> = {
  name: string;
  payloadSchema: z.ZodType<Payload>;
};

/** `enqueue` for a queue known only at run time (POST /api/jobs/:name): the same parse, untyped. */
export async function enqueueTo<Payload>(
  db: QueueDb,
  queue: NamedQueue<Payload>,
  payloads: readonly unknown[],
  options: EnqueueOptions = {},
): Promise<string[]> {
  if (payloads.length === 0) return [];
  const jobs = payloads.map((payload) => {
    const data = queue.payloadSchema.parse(payload);
    // pg-boss keeps a payload as a jsonb object; only a schema outside the registry could yield another.
    if (typeof data !== 'object' || data === null)
      throw new TypeError(`${queue.name}: payload is not an object`);
    return { data, singletonKey: options.singletonKey, singletonSeconds: options.singletonSeconds };
  });
  const [boss, client] = db instanceof PgBoss ? [db, null] : [db.boss, db.client];
  const ids = await boss.insert(queue.name, jobs, {
    ...(client ? { db: inTransaction(client) } : {}),
    returnId: true,
  });
  return ids ?? [];
}
