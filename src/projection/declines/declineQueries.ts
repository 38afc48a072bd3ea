import type { Queryable } from '../../db/pool.ts';

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
    // Two joins, each served by its own index (payment method; last four and expiry): one join on either
    // would scan every payment.
    `with declines as (
       select id, payment_method_id, card_last_four, card_expiry, card_brand,
              coalesce(created_at, updated_at) as attempted_at
         from payments where id = any($1::text[]) and status = 'failed' and retry_advice is not null
     )
     select other.id
       from declines d join payments other on other.payment_method_id = d.payment_method_id
      where other.id <> d.id and other.card_key is not null
        and coalesce(other.created_at, other.updated_at) > d.attempted_at
     union
     select other.id
       from declines d
       join payments other on other.card_last_four = d.card_last_four and other.card_expiry = d.card_expiry
                          and lower(other.card_brand) = lower(d.card_brand)
      where other.id <> d.id and other.card_key is not null
        and coalesce(other.created_at, other.updated_at) > d.attempted_at
      order by id`,
    [paymentIds],
  );
  return rows.map((row) => row.id);
}
