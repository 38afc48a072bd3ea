import type { Authorization } from '../domain/captureExpiry.ts';
import type { Queryable } from './pool.ts';

/**
 * Manual-capture authorizations not captured, canceled, failed or otherwise settled, authorized after
 * `since` (older ones are long expired and left alone).
 */
export async function listUncapturedAuthorizations(db: Queryable, since: Date): Promise<Authorization[]> {
  const { rows } = await db.query<Authorization>(
    `select id as "paymentId", account_id as "accountId", amount, currency, authorized_at as "authorizedAt"
       from payments
      where capture_strategy = 'manual' and authorized_at is not null and authorized_at > $1::timestamptz
        and captured_at is null and canceled_at is null and failed_at is null and succeeded_at is null
        and not status_terminal
      order by authorized_at, id`,
    [since],
  );
  return rows;
}
