import type { Queryable } from './pool.ts';

/** Payments linked to a checkout from either side: the checkout's own link, or a payment naming it. */
export async function listPaymentsOfCheckout(db: Queryable, checkoutId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select payment_id as id from checkouts where id = $1::text and payment_id is not null
     union select id from payments where checkout_id = $1::text`,
    [checkoutId],
  );
  return rows.map((row) => row.id);
}
