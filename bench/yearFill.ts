// The rows a year of processed payment deliveries leaves, generated in Postgres (never through HTTP) with the
// shapes the webhook and the worker write: each payment is announced twice (`payment.created`, then
// `payment.succeeded` 1.3 s later), both deliveries processed and named by the payment, the payment
// projected from the newer one with its two fees, reconciled (its fees unverified: no fee configuration is
// synced), at projected version 2. Event and payment ids are random hex, as the provider's are, so the
// dedupe and primary-key indexes are as scattered as a real year's; cards vary (last four and expiry) as
// customers' do, since the decline rules look up earlier payments of the same card. Bodies older than the kept window are
// purged as retention leaves them (empty `raw_body`, `body_purged_at` at the daily run after the cutoff).
import type pg from 'pg';

export type YearShape = {
  /** Deliveries: twice the payments. */
  deliveries: number;
  /** The fill's clock: the newest delivery arrives just before it, the oldest 365 days earlier. */
  now: Date;
  /** Bodies received within this many days of `now` are kept; older ones are purged. */
  keptBodyDays: number;
  /** The retention window the purged bodies were purged at. */
  retentionDays: number;
};

const DAY_MS = 86_400_000;
const YEAR_MS = 365 * DAY_MS;
// Deliveries of one payment arrive this long after its creation: `payment.created`, then `payment.succeeded`.
const CREATED_DELAY_MS = 200;
const SUCCEEDED_DELAY_MS = 1500;

export const paymentCount = (shape: YearShape) => Math.floor(shape.deliveries / 2);
const stepMs = (shape: YearShape) => YEAR_MS / paymentCount(shape);
const startOf = (shape: YearShape) => new Date(shape.now.getTime() - YEAR_MS);

/** The payments (1-based numbers) created in [from, to): the same rows in every database filled by shape. */
export function paymentsCreatedBetween(shape: YearShape, from: Date, to: Date): [number, number] {
  const offset = (at: Date) => (at.getTime() - startOf(shape).getTime()) / stepMs(shape);
  return [Math.max(1, Math.ceil(offset(from)) + 1), Math.min(paymentCount(shape), Math.ceil(offset(to)))];
}

// Per payment number `p` (and delivery `g` = 2p − 1 created, 2p succeeded): its id, times and data object,
// the `data` of paymentEventBody (bench/ingestBodies.ts) rebuilt in SQL.
const PAYMENT = `
  lateral (select 'py_' || left(md5('py' || p), 24) as pid, 'acc_' || (p % 50) as account_id,
                  $3::timestamptz + ((p - 1) * $4::float8) * interval '1 millisecond' as created_at) py,
  lateral (select py.created_at + interval '1 second' as updated_at, 'pm_' || left(md5('pm' || p), 24) as pm,
                  lpad(((p::bigint * 7919) % 10000)::text, 4, '0') as last_four, 1 + p % 12 as exp_month,
                  2027 + (p / 12) % 6 as exp_year) pt`;

const dataOf = (status: string, updatedAt: string) => `json_build_object(
  'id', py.pid, 'account_id', py.account_id, 'amount', 1000 + p % 9000, 'currency', 'usd', 'status', ${status},
  'capture_strategy', 'automatic', 'captured', ${status} = 'succeeded', 'payment_mode', 'ecom', 'fee_amount', 64,
  'fees', json_build_array(
    json_build_object('id', 'pyfee_' || py.pid || '_p', 'type', 'processing_fee', 'amount', 58, 'remaining_amount', 58,
      'currency', 'usd', 'source_configuration_id', 'sfc_visa', 'source_fee_type', 'visa_brand_ecomm'),
    json_build_object('id', 'pyfee_' || py.pid || '_f', 'type', 'platform_fee', 'amount', 6, 'remaining_amount', 6,
      'currency', 'usd', 'source_configuration_id', 'sfc_platform', 'source_fee_type', 'platform')),
  'application_fee_amount', null, 'amount_refunded', 0, 'refunds', json_build_array(), 'error_code', null,
  'error_description', null, 'checkout_id', null,
  'payment_method', json_build_object('card', json_build_object('id', pt.pm, 'brand', 'visa', 'acct_last_four', pt.last_four,
    'name', 'Benchmark Customer', 'exp_month', pt.exp_month, 'exp_year', pt.exp_year)),
  'description', rpad('Order for the ingest benchmark, padded to a realistic size', 140, '.'),
  'created_at', py.created_at, 'updated_at', ${updatedAt}, 'is_test', false,
  'metadata', json_build_object('order_id', 'ord_' || py.pid, 'customer_ref', 'cus_' || (p % 1000), 'channel', 'web'))`;

// $1, $2: payment numbers; $3 the year's start; $4 ms between payments; events also $5, the oldest kept
// body's arrival, and $6, the retention window (days) the older ones were purged at.
const INSERT_EVENTS = `
  insert into events (id, event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, status,
                      received_at, processed_at, source, attempts, payment_id, body_purged_at)
  overriding system value
  select g, d.event_id, d.event_name, py.account_id, 'live',
         jsonb_build_object('content-type', 'application/json',
           'justifi-signature', encode(sha256(int8send(g)), 'hex'),
           'justifi-timestamp', floor(extract(epoch from d.received_at))::bigint::text),
         coalesce(b.raw, ''::bytea), coalesce(sha256(b.raw), sha256(convert_to(d.event_id, 'UTF8'))), 'processed',
         d.received_at, d.received_at + interval '40 milliseconds', 'webhook', 0, py.pid,
         case when b.raw is null
              then date_trunc('day', d.received_at + make_interval(days => $6::int) - interval '3 hours')
                   + interval '1 day 3 hours' end
    from generate_series(2 * $1::int - 1, 2 * $2::int) g, lateral (select (g + 1) / 2 as p, 1 - g % 2 as k) n,
         ${PAYMENT},
         lateral (select 'evt_' || left(md5('evt' || g), 24) as event_id,
                         case k when 0 then 'payment.created' else 'payment.succeeded' end as event_name,
                         py.created_at + case k when 0 then interval '${CREATED_DELAY_MS} milliseconds'
                                                else interval '${SUCCEEDED_DELAY_MS} milliseconds' end as received_at) d,
         lateral (select case when d.received_at >= $5::timestamptz then convert_to(json_build_object(
                    'id', d.event_id, 'event_name', d.event_name, 'account_id', py.account_id, 'account_type', 'live',
                    'platform_account_id', 'acc_platform', 'idempotency_key', 'idem_' || d.event_id,
                    'request_id', 'req_' || d.event_id, 'version', 'v1',
                    'data', ${dataOf(`case k when 0 then 'pending' else 'succeeded' end`, `case k when 0 then py.created_at else pt.updated_at end`)})::text,
                    'UTF8') end as raw) b`;

const INSERT_PAYMENTS = `
  insert into payments (id, account_id, account_type, amount, currency, status, status_terminal, status_updated_at,
                        status_event_row_id, capture_strategy, captured, payment_mode, method_kind, card_brand,
                        fee_amount, amount_refunded, payment_method_id, created_at, updated_at, event_row_id,
                        captured_at, succeeded_at, fees_updated_at, fees_event_row_id, snapshot, delivered_updated_at,
                        card_last_four, card_expiry, card_key, fees_total, fees_processing, fees_platform,
                        fees_configured)
  select py.pid, py.account_id, 'live', 1000 + p % 9000, 'usd', 'succeeded', true, pt.updated_at, 2 * p,
         'automatic', true, 'ecom', 'card', 'visa', 64, 0, pt.pm, py.created_at, pt.updated_at, 2 * p,
         pt.updated_at, pt.updated_at, pt.updated_at, 2 * p, ${dataOf(`'succeeded'`, 'pt.updated_at')}::jsonb,
         pt.updated_at, pt.last_four, pt.exp_year || '-' || lpad(pt.exp_month::text, 2, '0'), pt.pm,
         64, 58, 6, 64
    from generate_series($1::int, $2::int) p, ${PAYMENT}
`;

const INSERT_FEES = `
  insert into payment_fees (id, payment_id, type, amount, remaining_amount, currency, source_configuration_id,
                            source_fee_type, snapshot_updated_at)
  select 'pyfee_' || py.pid || f.suffix, py.pid, f.type, f.amount, f.amount, 'usd', f.configuration, f.fee_type,
         pt.updated_at
    from generate_series($1::int, $2::int) p, ${PAYMENT},
         (values ('_p', 'processing_fee', 58, 'sfc_visa', 'visa_brand_ecomm'),
                 ('_f', 'platform_fee', 6, 'sfc_platform', 'platform')) f(suffix, type, amount, configuration, fee_type)
`;

const INSERT_RECONCILIATIONS = `
  with reconciled as (
    select py.pid, py.account_id, pt.updated_at + interval '300 milliseconds' as reconciled_at
      from generate_series($1::int, $2::int) p, ${PAYMENT}),
  states as (
    insert into payment_reconciliation_states (payment_id, projected_version, reconciled_version, reconciled_at)
    select pid, 2, 2, reconciled_at from reconciled)
  insert into payment_reconciliations (payment_id, account_id, reconciled_at, overrides, unverified)
  select pid, account_id, reconciled_at, 0, 2 from reconciled`;

/** The tables the fill writes, in the order it writes them. */
export const FILLED_TABLES = [
  'events',
  'payments',
  'payment_fees',
  'payment_reconciliation_states',
  'payment_reconciliations',
];

/** Inserts payments [from, to] of the shape, their deliveries and everything the worker wrote for them. */
export async function fillPayments(db: pg.ClientBase, shape: YearShape, from: number, to: number) {
  const payments = [from, to, startOf(shape), stepMs(shape)];
  const keptSince = new Date(shape.now.getTime() - shape.keptBodyDays * DAY_MS);
  await db.query(INSERT_EVENTS, [...payments, keptSince, shape.retentionDays]);
  for (const statement of [INSERT_PAYMENTS, INSERT_FEES, INSERT_RECONCILIATIONS]) {
    await db.query(statement, payments);
  }
}

/** The webhook's next delivery gets the id after the filled ones (they were inserted with their own ids). */
export async function continueEventIds(db: pg.ClientBase) {
  await db.query(
    `select setval(pg_get_serial_sequence('events', 'id'), greatest((select max(id) from events), 1))`,
  );
}
