import type { Queryable } from '../db/pool.ts';
import { PAYABLE_PAYMENT_STATUSES, sqlStatuses } from '../domain/paymentStatuses.ts';

/**
 * Payments that may be awaiting payout past their time: in an account the payout sync lists, created between
 * the start of its first full listing and the newest payout it synced and at least `minDays` before `now`, in
 * a status that gets paid out, and credited by no payout that did not fail. The rules decide exactly (days
 * per payout type).
 */
export async function listPaymentsAwaitingPayout(
  db: Queryable,
  now: Date,
  minDays: number,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select p.id
       from payout_sync_accounts s join payments p on p.account_id = s.account_id
      where p.created_at < s.newest_payout_created_at and p.created_at >= s.listed_from
        and p.created_at <= $1::timestamptz - make_interval(days => $2::int)
        and p.status in ${sqlStatuses(PAYABLE_PAYMENT_STATUSES)} and not coalesce(p.returned, false)
        and not exists (
          select from payout_lines l join payouts po on po.id = l.payout_id
           where l.kind = 'payment' and l.amount > 0 and po.status not in ('failed', 'canceled')
             and (l.source_payment_id = p.id or (l.source_payment_id is null and l.source_id = p.id)))`,
    [now, minDays],
  );
  return rows.map((row) => row.id);
}

/** Payouts not settled (paid, failed, canceled, forwarded) whose `deposits_at` is `hours` or more before `now`. */
export async function listOverduePayouts(db: Queryable, now: Date, hours: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id from payouts
      where status not in ('paid', 'failed', 'canceled', 'forwarded')
        and deposits_at <= $1::timestamptz - make_interval(hours => $2::int)`,
    [now, hours],
  );
  return rows.map((row) => row.id);
}
