import type { Queryable } from '../db/pool.ts';

/**
 * Gives each of these payments that is now a decline (a failed card payment with a retry advice) its row
 * in `payment_declines`, once: the order in which the projection first saw each decline.
 */
export async function recordPaymentDeclines(db: Queryable, paymentIds: string[]): Promise<void> {
  if (paymentIds.length === 0) return;
  await db.query(
    `insert into payment_declines (payment_id)
     select id from payments
      where id = any($1::text[]) and status = 'failed' and retry_advice is not null
      order by id
     on conflict (payment_id) do nothing`,
    [paymentIds],
  );
}

/**
 * Payments on the same card (same payment method id, or same brand, last four and expiry) attempted after
 * one of these payments' declines: their `card_retried_against_advice` depends on it, whatever order the
 * deliveries came in.
 */
export async function listPaymentsAfterDeclines(db: Queryable, paymentIds: string[]): Promise<string[]> {
  if (paymentIds.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `select distinct other.id
       from payments p
       join payments other on other.id <> p.id and (
              other.payment_method_id = p.payment_method_id
              or (other.card_last_four = p.card_last_four and other.card_expiry = p.card_expiry
                  and lower(other.card_brand) = lower(p.card_brand)))
      where p.id = any($1::text[]) and p.status = 'failed' and p.retry_advice is not null
        and other.card_key is not null
        and coalesce(other.created_at, other.updated_at) > coalesce(p.created_at, p.updated_at)
      order by other.id`,
    [paymentIds],
  );
  return rows.map((row) => row.id);
}
