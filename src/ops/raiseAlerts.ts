import type { Config } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueue } from '../queue/enqueue.ts';
import { insertAlerts, type NewAlert } from './queries.ts';

/**
 * When a digest raised at `now` is due: the end of the ALERT_DIGEST_MINUTES window holding `now` (windows
 * are aligned to the UTC clock, so every worker puts an alert in the same window). Null without digests.
 */
export function digestDueAt(config: Pick<Config, 'ALERT_DIGEST_MINUTES'>, now: Date): Date | null {
  const minutes = config.ALERT_DIGEST_MINUTES;
  if (minutes === undefined) return null;
  const window = minutes * 60_000;
  return new Date((Math.floor(now.getTime() / window) + 1) * window);
}

/**
 * Records alerts (each dedupe key once, whoever raises it first) in the caller's transaction and queues the
 * new ones on `send-alert`, or, with ALERT_DIGEST_MINUTES, leaves them for their window's digest. Returns
 * the ids of the new alerts.
 */
export async function raiseAlerts(
  db: { boss: Boss; client: Queryable },
  config: Pick<Config, 'ALERT_DIGEST_MINUTES'>,
  alerts: NewAlert[],
  now: Date,
): Promise<number[]> {
  const dueAt = digestDueAt(config, now);
  const ids = await insertAlerts(db.client, alerts, now, dueAt);
  if (dueAt === null)
    await enqueue(
      db,
      'send-alert',
      ids.map((id) => ({ alert_id: id })),
    );
  return ids;
}
