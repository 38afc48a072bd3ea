import type { Page, Queryable } from '../db/pool.ts';
import { findingJson } from '../findings/presentFinding.ts';

// Ordering bookkeeping, not facts about the payment.
export const INTERNAL_COLUMNS: readonly string[] = [
  'snapshot',
  'event_row_id',
  'status_terminal',
  'status_rank',
  'status_updated_at',
  'status_event_row_id',
  'fees_updated_at',
  'fees_event_row_id',
  'returned_fees_updated_at',
  'returned_fees_event_row_id',
];
export const INTERNAL = `'{${INTERNAL_COLUMNS.join(',')}}'::text[]`;

/** How the API shows each object inside a payment (alias: the object's table row); the changes feed too. */
export const OBJECT_JSON = {
  refund: (r: string) =>
    `(to_jsonb(${r}) - ${INTERNAL}) || jsonb_build_object('returned_fees',
       (select coalesce(jsonb_agg(to_jsonb(rf) - 'refund_id' order by rf.id), '[]')
          from returned_fees rf where rf.refund_id = ${r}.id))`,
  checkout: (c: string) => `to_jsonb(${c}) - ${INTERNAL}`,
  forwarding_request: (w: string) => `to_jsonb(${w}) - ${INTERNAL}`,
  dispute: (d: string) => `to_jsonb(${d}) - ${INTERNAL} - 'row_id'`,
} as const;

// Open and resolved findings about the payment or anything of it, newest first.
const FINDINGS_SHOWN = 500;

/** The parts of a payment as the API shows it (alias: the payments row), each a jsonb expression. */
const paymentParts = (p: string) => ({
  payment: `to_jsonb(${p}) - ${INTERNAL}`,
  fees: `(select coalesce(jsonb_agg(to_jsonb(f) - 'payment_id' order by f.type, f.id), '[]')
            from payment_fees f where f.payment_id = ${p}.id)`,
  refunds: `(select coalesce(jsonb_agg(${OBJECT_JSON.refund('r')} order by r.created_at, r.id), '[]')
               from refunds r where r.payment_id = ${p}.id)`,
  checkout: `(select ${OBJECT_JSON.checkout('c')}
                from checkouts c where c.id = ${p}.checkout_id or c.payment_id = ${p}.id
               order by c.id limit 1)`,
  forwarding_requests: `(select coalesce(jsonb_agg(${OBJECT_JSON.forwarding_request('w')} order by w.created_at, w.id), '[]')
                           from forwarding_requests w where w.payment_method_id = ${p}.payment_method_id)`,
  disputes: `(select coalesce(jsonb_agg(${OBJECT_JSON.dispute('d')} order by d.created_at, d.id), '[]')
                from disputes d where d.payment_id = ${p}.id)`,
});

/**
 * A payment as GET /api/payments/:id and its changes show it: the payment with its fees, refunds (each with its
 * returned fees), checkout, the forwarding requests of its payment method, its disputes and its findings.
 */
export function paymentJson(p: string): string {
  const { payment, ...related } = paymentParts(p);
  const relatedPairs = Object.entries(related).map(([name, sql]) => `'${name}', ${sql}`);
  return `(${payment}) || jsonb_build_object(${relatedPairs.join(', ')},
    'findings', (select coalesce(jsonb_agg(${findingJson('f')} order by f.id desc), '[]')
                   from (select * from findings f
                          where f.subject_id = ${p}.id or f.details->>'payment_id' = ${p}.id
                          order by f.id desc limit ${FINDINGS_SHOWN}) f))`;
}

/** Payments as `paymentJson` shows them, by id; a payment not stored is absent. */
export async function readPaymentDetails(db: Queryable, ids: string[]): Promise<Map<string, unknown>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; data: unknown }>(
    `select p.id, ${paymentJson('p')} as data from payments p where p.id = any($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.data]));
}

export type PaymentDetail = {
  payment: Record<string, unknown>;
  fees: Record<string, unknown>[];
  refunds: Record<string, unknown>[];
  checkout: Record<string, unknown> | null;
  forwarding_requests: Record<string, unknown>[];
  disputes: Record<string, unknown>[];
};

/** A payment's parts as `paymentJson` builds them, apart, for the console's page; null when not stored. */
export async function findPaymentDetail(db: Queryable, id: string): Promise<PaymentDetail | null> {
  const parts = Object.entries(paymentParts('p')).map(([name, sql]) => `${sql} as ${name}`);
  const { rows } = await db.query<PaymentDetail>(
    `select ${parts.join(', ')} from payments p where p.id = $1::text`,
    [id],
  );
  return rows[0] ?? null;
}

export type DisputeFilter = { status?: string | undefined; accountId?: string | undefined };

/**
 * Disputes newest first (by when Tally first projected them), filtered, one page plus one row. `id` is
 * the row number the cursor pages by; `dispute_id` is the provider's `dp_` id.
 */
export async function listDisputes(db: Queryable, filter: DisputeFilter, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<Record<string, unknown> & { id: number; dispute_id: string }>(
    `select row_id as id, id as dispute_id, payment_id, account_id, account_type, amount, currency, reason,
            to_char(due_date, 'YYYY-MM-DD') as due_date, status, created_at, updated_at
       from disputes
      where ($1::text is null or status = $1::text)
        and ($2::text is null or account_id = $2::text)
        and ($3::bigint is null or row_id < $3::bigint) and ($4::bigint is null or row_id > $4::bigint)
      order by row_id ${backwards ? 'asc' : 'desc'}
      limit $5::int`,
    [filter.status ?? null, filter.accountId ?? null, page.afterId, page.beforeId, page.limit + 1],
  );
  return rows;
}

/** `{field: {value: deliveries}}`: what the provider sent that Tally keeps but does not know. */
export async function summarizeUnknownValues(db: Queryable): Promise<Record<string, Record<string, number>>> {
  const { rows } = await db.query<{ field: string; value: string; deliveries: number }>(
    `select field, value, deliveries from unknown_values order by field, deliveries desc, value limit 1000`,
  );
  const summary: Record<string, Record<string, number>> = {};
  for (const row of rows) summary[row.field] = { ...summary[row.field], [row.value]: row.deliveries };
  return summary;
}

/** Deliveries carrying an unknown value, per field: the metric, which never labels by value. */
export async function countUnknownValuesByField(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ field: string; deliveries: number }>(
    `select field, sum(deliveries)::bigint as deliveries from unknown_values group by field`,
  );
  return new Map(rows.map((row) => [row.field, row.deliveries]));
}

export type PaymentFilter = {
  accountId?: string | undefined;
  status?: string | undefined;
  updatedAfter?: Date | undefined;
};

/**
 * Payment ids by id, descending (or ascending before a cursor), filtered, one page plus one row: a page holds
 * its place by id whatever changes meanwhile, so a resync that pages through misses no payment.
 */
export async function listPaymentIds(
  db: Queryable,
  filter: PaymentFilter,
  page: { limit: number; afterId: string | null; beforeId: string | null },
): Promise<string[]> {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<{ id: string }>(
    `select id from payments
      where ($1::text is null or account_id = $1::text)
        and ($2::text is null or status = $2::text)
        and ($3::timestamptz is null or updated_at >= $3::timestamptz)
        and ($4::text is null or id < $4::text) and ($5::text is null or id > $5::text)
      order by id ${backwards ? 'asc' : 'desc'}
      limit $6::int`,
    [
      filter.accountId ?? null,
      filter.status ?? null,
      filter.updatedAfter ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
    ],
  );
  return rows.map((row) => row.id);
}
