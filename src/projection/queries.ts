import type { Queryable } from '../db/pool.ts';
import { newerWinsUpsert } from './newerWins.ts';

const UPSERT_PAYMENT_SQL = `${newerWinsUpsert('payments', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'amount',
        'currency',
        'capture_strategy',
        'captured',
        'payment_mode',
        'method_kind',
        'card_brand',
        'expedited',
        'fee_amount',
        'application_fee_amount',
        'amount_refunded',
        'returned',
        'amount_returned',
        'error_code',
        'error_description',
        'checkout_id',
        'payment_method_id',
        'created_at',
        'snapshot',
      ],
    },
    { key: ['status_terminal', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
    { key: ['fees_updated_at', 'fees_event_row_id'], columns: [] },
  ],
  earliest: ['authorized_at', 'captured_at', 'succeeded_at', 'failed_at', 'canceled_at'],
})}
  returning event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as current,
            fees_event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as fees_current`;

/**
 * Upserts a payment snapshot; `current` / `feesCurrent` say whether this
 * snapshot (its fields / its fee list) is now the one shown.
 */
export async function upsertPayment(
  db: Queryable,
  row: Record<string, unknown>,
): Promise<{ current: boolean; feesCurrent: boolean }> {
  const { rows } = await db.query<{ current: boolean; fees_current: boolean }>(UPSERT_PAYMENT_SQL, [row]);
  return { current: rows[0]?.current ?? false, feesCurrent: rows[0]?.fees_current ?? false };
}

/** Makes a payment's fee rows exactly those of its newest snapshot (fees arrive asynchronously). */
export async function replacePaymentFees(db: Queryable, paymentId: string, fees: Record<string, unknown>[]) {
  await db.query(
    `with incoming as (
       select * from jsonb_populate_recordset(null::payment_fees, $2::jsonb)
     ), removed as (
       delete from payment_fees where payment_id = $1::text and id not in (select id from incoming)
     )
     insert into payment_fees select * from incoming
     on conflict (id) do update set
       payment_id = excluded.payment_id, type = excluded.type, amount = excluded.amount,
       remaining_amount = excluded.remaining_amount, currency = excluded.currency,
       source_configuration_id = excluded.source_configuration_id, source_fee_type = excluded.source_fee_type,
       snapshot_updated_at = excluded.snapshot_updated_at`,
    [paymentId, JSON.stringify(fees)],
  );
}

const UPSERT_REFUND_SQL = `${newerWinsUpsert('refunds', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: ['payment_id', 'amount', 'reason', 'status', 'created_at', 'snapshot'],
    },
    { key: ['returned_fees_updated_at', 'returned_fees_event_row_id'], columns: [] },
  ],
})}
  returning event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as current,
            returned_fees_event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as fees_current`;

/**
 * Upserts a refund snapshot; `current` / `feesCurrent` say whether this
 * snapshot (its fields / its fee list) is now the one shown.
 */
export async function upsertRefund(
  db: Queryable,
  row: Record<string, unknown>,
): Promise<{ current: boolean; feesCurrent: boolean }> {
  const { rows } = await db.query<{ current: boolean; fees_current: boolean }>(UPSERT_REFUND_SQL, [row]);
  return { current: rows[0]?.current ?? false, feesCurrent: rows[0]?.fees_current ?? false };
}

/** Makes a refund's returned-fee rows exactly those of its newest snapshot. */
export async function replaceReturnedFees(db: Queryable, refundId: string, fees: Record<string, unknown>[]) {
  await db.query(
    `with incoming as (
       select * from jsonb_populate_recordset(null::returned_fees, $2::jsonb)
     ), removed as (
       delete from returned_fees where refund_id = $1::text and id not in (select id from incoming)
     )
     insert into returned_fees select * from incoming
     on conflict (id) do update set
       refund_id = excluded.refund_id, payment_fee_id = excluded.payment_fee_id, type = excluded.type,
       returned_amount = excluded.returned_amount, original_amount = excluded.original_amount,
       remaining_amount = excluded.remaining_amount, currency = excluded.currency`,
    [refundId, JSON.stringify(fees)],
  );
}

const UPSERT_CHECKOUT_SQL = newerWinsUpsert('checkouts', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'amount',
        'description',
        'payment_amount',
        'currency',
        'created_at',
        'snapshot',
      ],
    },
    { key: ['status_rank', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
  ],
  // Set by whichever events name them: fees by the checkout, the payment by its completion. An event
  // without them never clears them; the newest snapshot that has fees decides them.
  custom: {
    fees: 'case when excluded.fees is not null and (checkouts.fees is null or (excluded.updated_at, excluded.event_row_id) > (checkouts.updated_at, checkouts.event_row_id)) then excluded.fees else checkouts.fees end',
    payment_id:
      'coalesce(least(checkouts.payment_id, excluded.payment_id), checkouts.payment_id, excluded.payment_id)',
  },
});

/** Upserts what a checkout event says about its checkout. */
export async function upsertCheckout(db: Queryable, row: Record<string, unknown>): Promise<void> {
  await db.query(UPSERT_CHECKOUT_SQL, [row]);
}

/** Payments linked to a checkout from either side: the checkout's own link, or a payment naming it. */
export async function listPaymentsOfCheckout(db: Queryable, checkoutId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select payment_id as id from checkouts where id = $1::text and payment_id is not null
     union select id from payments where checkout_id = $1::text`,
    [checkoutId],
  );
  return rows.map((row) => row.id);
}

export type DisputeRow = {
  id: string;
  payment_id: string;
  account_id: string;
  account_type: string;
  amount: number | null;
  currency: string | null;
  reason: string | null;
  due_date: string | null;
  status: string | null;
  status_rank: number;
  status_updated_at: Date | string;
  status_event_row_id: number;
  created_at: Date | null;
  updated_at: Date;
  event_row_id: number;
  snapshot: unknown;
};

const UPSERT_DISPUTE_SQL = newerWinsUpsert('disputes', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'payment_id',
        'account_id',
        'account_type',
        'amount',
        'currency',
        'reason',
        'due_date',
        'created_at',
        'snapshot',
      ],
    },
    { key: ['status_rank', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
  ],
});

/** Upserts a dispute snapshot; newer snapshots win their fields, a higher-ranked status wins the status. */
export async function upsertDispute(db: Queryable, row: DisputeRow): Promise<void> {
  await db.query(UPSERT_DISPUTE_SQL, [row]);
}

const UPSERT_FORWARDING_REQUEST_SQL = newerWinsUpsert('forwarding_requests', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'payment_method_id',
        'url',
        'http_method',
        'provider',
        'attempted_at',
        'created_at',
        'snapshot',
      ],
    },
    {
      key: ['status_rank', 'status_updated_at', 'status_event_row_id'],
      columns: ['status', 'failure_reason', 'response_status_code', 'response_time_ms'],
    },
  ],
});

/** Upserts a forwarding request snapshot. */
export async function upsertForwardingRequest(db: Queryable, row: Record<string, unknown>): Promise<void> {
  await db.query(UPSERT_FORWARDING_REQUEST_SQL, [row]);
}

export type ForwardingOutcome = {
  eventRowId: number;
  forwardingRequestId: string;
  status: 'completed' | 'failed';
  failureReason: string | null;
  responseStatusCode: number | null;
  url: string | null;
};

/** Records one terminal outcome event of a forwarding request; the same event twice is stored once. */
export async function insertForwardingOutcome(db: Queryable, outcome: ForwardingOutcome): Promise<void> {
  await db.query(
    `insert into forwarding_outcomes (event_row_id, forwarding_request_id, status, failure_reason,
                                      response_status_code, url)
     values ($1::bigint, $2::text, $3::text, $4::text, $5::integer, $6::text)
     on conflict (event_row_id) do nothing`,
    [
      outcome.eventRowId,
      outcome.forwardingRequestId,
      outcome.status,
      outcome.failureReason,
      outcome.responseStatusCode,
      outcome.url,
    ],
  );
}

export type ForwardingOutcomeRow = {
  event_row_id: number;
  status: string;
  failure_reason: string | null;
  response_status_code: number | null;
};

export async function listForwardingOutcomes(
  db: Queryable,
  requestId: string,
): Promise<ForwardingOutcomeRow[]> {
  const { rows } = await db.query<ForwardingOutcomeRow>(
    `select event_row_id, status, failure_reason, response_status_code
       from forwarding_outcomes where forwarding_request_id = $1::text order by event_row_id`,
    [requestId],
  );
  return rows;
}
