import type { Queryable } from './pool.ts';

// Ordering bookkeeping, not facts about the payment.
const INTERNAL = `'{snapshot,event_row_id,status_terminal,status_rank,status_updated_at,status_event_row_id,fees_updated_at,fees_event_row_id,returned_fees_updated_at,returned_fees_event_row_id}'::text[]`;

export type PaymentDetail = {
  payment: Record<string, unknown>;
  fees: Record<string, unknown>[];
  refunds: Record<string, unknown>[];
  checkout: Record<string, unknown> | null;
  forwarding_requests: Record<string, unknown>[];
  disputes: Record<string, unknown>[];
};

/** A payment with its fees, refunds (each with its returned fees), checkout, forwarding requests and disputes. */
export async function findPaymentDetail(db: Queryable, id: string): Promise<PaymentDetail | null> {
  const { rows } = await db.query<PaymentDetail>(
    `select to_jsonb(p) - ${INTERNAL} as payment,
            (select coalesce(jsonb_agg(to_jsonb(f) - 'payment_id' order by f.type, f.id), '[]')
               from payment_fees f where f.payment_id = p.id) as fees,
            (select coalesce(jsonb_agg((to_jsonb(r) - ${INTERNAL}) || jsonb_build_object('returned_fees',
                      (select coalesce(jsonb_agg(to_jsonb(rf) - 'refund_id' order by rf.id), '[]')
                         from returned_fees rf where rf.refund_id = r.id))
                    order by r.created_at, r.id), '[]')
               from refunds r where r.payment_id = p.id) as refunds,
            (select to_jsonb(c) - ${INTERNAL}
               from checkouts c where c.id = p.checkout_id or c.payment_id = p.id
              order by c.id limit 1) as checkout,
            (select coalesce(jsonb_agg(to_jsonb(w) - ${INTERNAL} order by w.created_at, w.id), '[]')
               from forwarding_requests w where w.payment_method_id = p.payment_method_id) as forwarding_requests,
            (select coalesce(jsonb_agg(to_jsonb(d) - ${INTERNAL} - 'row_id' order by d.created_at, d.id), '[]')
               from disputes d where d.payment_id = p.id) as disputes
       from payments p
      where p.id = $1::text`,
    [id],
  );
  return rows[0] ?? null;
}
