import type { Queryable } from '../db/pool.ts';
import type { MovementKind } from '../domain/movementKinds.ts';
import { SUCCEEDED_REFUND } from '../reports/dailyPaymentQueries.ts';

/** A sum of one kind of movement on one business day, per account and currency; payouts one by one. */
export type MovementRow = {
  account_type: string;
  account_id: string;
  currency: string;
  day: string;
  kind: MovementKind;
  /** The payout id for payout, reversal, bank and unexplained movements; null for daily sums. */
  reference: string | null;
  amount: number;
};

// Payments that moved money, and ACH payments that did before they were returned.
export const SUCCEEDED_PAYMENT = `(p.status in ('succeeded', 'partially_refunded', 'fully_refunded', 'refunded', 'disputed')
  or (p.status = 'failed' and (p.succeeded_at is not null or p.returned is true)))`;

// When a payment succeeded: its creation when captured at creation, else the first snapshot showing success.
export const MANUAL_CAPTURE = `p.capture_strategy = 'manual'`;
export const MANUAL_SUCCEEDED_AT = `coalesce(p.succeeded_at, p.captured_at, p.created_at)`;

// Items older than the payout sync's first listing of their account count only once a synced payout contains
// them: the provider paid out the older ones in payouts Tally never listed, so counting them would leave them
// held for ever. An account the sync does not list (or has not listed yet) counts everything. An item no
// older than every account's listing start is decided without looking further (one comparison per row, so
// the month's scan stays parallel and hash-aggregated).
const COUNTED = (accountId: string, at: string, contained: string) =>
  `(${at} >= (select coalesce(max(listed_from), '-infinity') from payout_sync_accounts)
    or not exists (select 1 from payout_sync_accounts s
                    where s.account_id = ${accountId} and ${at} < s.listed_from
                      and not exists (select 1 from payout_lines l where ${contained})))`;
const PAYMENT_CREDITED = `l.source_payment_id = p.id and l.kind = 'payment'`;
// An ACH return or a dispute is contained when a synced payout has any line of its payment.
const DISPUTE_PAID = `l.source_payment_id = d.payment_id`;

// A manual capture succeeds within its 7-day authorization: the creation window to scan is that much wider.
export const CAPTURE_WINDOW = `interval '8 days'`;

// A payout says no test or live: its account's mode as the provider stated it does, in the account_type of its
// payments, disputes or forwarding requests (deliveries, or an API answer's is_test), else of the payout's own
// delivery (one index lookup per payout while the account has payments). The payout sync's snapshots (ids
// `api_…`) are left out: they carry a mode the sync assumed. Nothing stated: `unknown`, never guessed (docs/month-end.md,
// "Test money"), so the journal leaves it out and the report lists it.
export const ACCOUNT_TYPE_OF = (payout: string) =>
  `coalesce((select account_type from payments where account_id = ${payout}.account_id limit 1),
            (select account_type from disputes where account_id = ${payout}.account_id limit 1),
            (select account_type from forwarding_requests where account_id = ${payout}.account_id limit 1),
            (select e.account_type from events e
              where e.id = ${payout}.event_row_id and e.event_id not like 'api\\_%'),
            'unknown')`;

const feeKind = (type: string) =>
  `case when ${type} = 'processing_fee' then 'processing' when ${type} = 'platform_fee' then 'platform' else 'other' end`;

/**
 * Every movement of money Tally knows between two instants, each on its business day in `timeZone` (docs/month-end.md,
 * "When each item counts"): sales and their fees when the payment succeeded; refunds and the fees they returned
 * on the refund's creation; ACH returns and the fees they handed back when the payment first showed failed;
 * disputes withdrawn on creation and returned when won; payouts on creation, reversed when they failed or were
 * canceled, met by a bank credit on its value date; and each synced payout's `unexplained`: its amount less
 * what Tally's activity says its lines are. Set-based: one statement of grouped scans.
 */
export async function listMovements(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<MovementRow[]> {
  const rows = await listCountedMovements(db, from, to, timeZone);
  const leftOut = await listLeftOutSales(db, from, to, timeZone);
  if (leftOut.length === 0) return rows;
  const daily = new Map(rows.filter((row) => row.reference === null).map((row) => [dailyKeyOf(row), row]));
  for (const row of leftOut) {
    const sum = daily.get(dailyKeyOf(row));
    if (sum) sum.amount += row.amount;
  }
  return rows.filter((row) => row.reference !== null || row.amount !== 0);
}

const dailyKeyOf = (row: MovementRow) =>
  [row.account_type, row.account_id, row.currency, row.day, row.kind].join('\u0000');

/**
 * The sales (and their fees) captured at creation that the payout-listing rule leaves out (COUNTED), as negative
 * daily sums to take off listCountedMovements' own. A query apart, so the month's scan there stays a plain
 * parallel, hash-aggregated one: only payments older than some account's listing start are read here, by index.
 */
async function listLeftOutSales(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<MovementRow[]> {
  const { rows } = await db.query<MovementRow>(
    `select account_type, account_id, currency, day::text, v.kind, null::text as reference, -v.amount as amount
       from (select p.account_type, p.account_id, p.currency, (p.created_at at time zone $3::text)::date as day,
                    sum(p.amount)::bigint as sale, sum(p.fees_processing)::bigint as fee_processing,
                    sum(p.fees_platform)::bigint as fee_platform, sum(p.fees_other)::bigint as fee_other
               from payments p
              where p.created_at >= $1::timestamptz and p.created_at < $2::timestamptz and ${SUCCEEDED_PAYMENT}
                and (${MANUAL_CAPTURE}) is not true
                and p.created_at < (select coalesce(max(listed_from), '-infinity') from payout_sync_accounts)
                and not ${COUNTED('p.account_id', 'p.created_at', PAYMENT_CREDITED)}
              group by 1, 2, 3, 4) left_out,
            lateral (values ('sale', sale), ('fee_processing', fee_processing), ('fee_platform', fee_platform),
                            ('fee_other', fee_other)) as v(kind, amount)
      where v.amount <> 0`,
    [from ?? '-infinity', to, timeZone],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}

/** listMovements before the sales the payout-listing rule leaves out are taken off. */
async function listCountedMovements(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<MovementRow[]> {
  const { rows } = await db.query<MovementRow>(
    `with sold as (
       -- Captured at creation, and manual captures apart: the planner then sees the first part's size from the
       -- creation index instead of guessing at a filter on an expression.
       select p.account_type, p.account_id, p.currency, p.amount, p.fees_processing, p.fees_platform, p.fees_other,
              p.created_at as at
         from payments p
        where p.created_at >= $1::timestamptz and p.created_at < $2::timestamptz and ${SUCCEEDED_PAYMENT}
          and (${MANUAL_CAPTURE}) is not true
       union all
       select p.account_type, p.account_id, p.currency, p.amount, p.fees_processing, p.fees_platform, p.fees_other,
              ${MANUAL_SUCCEEDED_AT}
         from payments p
        where p.created_at >= $1::timestamptz - ${CAPTURE_WINDOW} and p.created_at < $2::timestamptz and ${SUCCEEDED_PAYMENT}
          and ${MANUAL_CAPTURE}
          and ${MANUAL_SUCCEEDED_AT} >= $1::timestamptz and ${MANUAL_SUCCEEDED_AT} < $2::timestamptz
          and ${COUNTED('p.account_id', MANUAL_SUCCEEDED_AT, PAYMENT_CREDITED)}
     ), sold_daily as (
       -- Summed per business day before the sums become a row per kind: a few rows per account and day instead
       -- of four per payment. Its at is the day's first instant, which daily maps back to that same day.
       -- Grouped on the business date, converted back to an instant once per group rather than once per payment.
       select account_type, account_id, currency, day::timestamp at time zone $3::text as at, amount, fees_processing,
              fees_platform, fees_other
         from (select account_type, account_id, currency, (at at time zone $3::text)::date as day,
                      sum(amount)::bigint as amount, sum(fees_processing)::bigint as fees_processing,
                      sum(fees_platform)::bigint as fees_platform, sum(fees_other)::bigint as fees_other
                 from sold
                group by 1, 2, 3, 4) by_day
     ), sales as (
       select account_type, account_id, currency, at, v.kind, v.amount
         from sold_daily,
              lateral (values ('sale', amount), ('fee_processing', fees_processing), ('fee_platform', fees_platform),
                              ('fee_other', fees_other)) as v(kind, amount)
        where v.amount <> 0
     ), refunded as (
       select r.id, p.account_type, p.account_id, p.currency, r.amount, coalesce(r.created_at, r.updated_at) as at
         from refunds r join payments p on p.id = r.payment_id
        where r.status in ${SUCCEEDED_REFUND}
          and ((r.created_at >= $1::timestamptz and r.created_at < $2::timestamptz)
               or (r.created_at is null and r.updated_at >= $1::timestamptz and r.updated_at < $2::timestamptz))
          and ${COUNTED('p.account_id', 'coalesce(r.created_at, r.updated_at)', `l.source_id = r.id and l.kind = 'refund'`)}
     ), refund_items as (
       select account_type, account_id, currency, at, 'refund' as kind, amount from refunded
       union all
       select d.account_type, d.account_id, d.currency, d.at, 'fee_returned_' || ${feeKind('f.type')}, f.returned_amount
         from refunded d join returned_fees f on f.refund_id = d.id
        where f.returned_amount <> 0
     ), returned as (
       select p.id, p.account_type, p.account_id, p.currency, p.amount, p.failed_at as at
         from payments p
        where p.status = 'failed' and (p.succeeded_at is not null or p.returned is true)
          and p.failed_at >= $1::timestamptz and p.failed_at < $2::timestamptz
          and ${COUNTED('p.account_id', 'p.failed_at', 'l.source_payment_id = p.id')}
     ), returned_by_refunds as (
       select rf.payment_fee_id, sum(rf.returned_amount) as returned_amount
         from returned h
         join refunds r on r.payment_id = h.id and r.status in ${SUCCEEDED_REFUND}
         join returned_fees rf on rf.refund_id = r.id
        group by 1
     ), return_items as (
       select account_type, account_id, currency, at, 'ach_return' as kind, amount from returned
       union all
       select h.account_type, h.account_id, h.currency, h.at, 'fee_returned_' || ${feeKind('f.type')},
              greatest(f.amount - f.remaining_amount - coalesce(b.returned_amount, 0), 0)
         from returned h
         join payment_fees f on f.payment_id = h.id and f.remaining_amount is not null
         left join returned_by_refunds b on b.payment_fee_id = f.id
     ), dispute_items as (
       select d.account_type, d.account_id, d.currency, d.created_at as at, 'dispute_withdrawn' as kind, d.amount
         from disputes d
        where d.created_at >= $1::timestamptz and d.created_at < $2::timestamptz and d.amount is not null
          and ${COUNTED('d.account_id', 'd.created_at', DISPUTE_PAID)}
       union all
       select d.account_type, d.account_id, d.currency, d.status_updated_at, 'dispute_returned', d.amount
         from disputes d
        where d.status = 'won' and d.status_updated_at >= $1::timestamptz and d.status_updated_at < $2::timestamptz and d.amount is not null
          and ${COUNTED('d.account_id', 'd.status_updated_at', DISPUTE_PAID)}
     ), daily as (
       select account_type, account_id, currency, (at at time zone $3::text)::date as day, kind, null::text as reference,
              sum(amount)::bigint as amount
         from (select * from sales union all select * from refund_items union all select * from return_items
               union all select * from dispute_items) items
        group by 1, 2, 3, 4, 5
       having sum(amount) <> 0
     ), paid as (
       select o.id, o.account_id, ${ACCOUNT_TYPE_OF('o')} as account_type, o.currency, o.amount,
              o.created_at, o.status, o.updated_at, o.lines_complete
         from payouts o
        where (o.created_at >= $1::timestamptz and o.created_at < $2::timestamptz)
           or (o.status in ('failed', 'canceled') and o.updated_at >= $1::timestamptz and o.updated_at < $2::timestamptz)
     ), explained as (
       -- The value kept with the payout's judgement; from its lines and their checks when none is kept.
       select o.id as payout_id,
              coalesce(case when r.lines_value_judged_at = r.judged_at then r.lines_value end,
                (select sum(case when c.line_id is null then l.net
                                 when c.status in ('ok', 'mismatch') then coalesce(c.expected, 0) else 0 end)::bigint
                   from payout_lines l left join payout_line_checks c on c.line_id = l.id
                  where l.payout_id = o.id and l.kind <> 'payout')) as amount
         from paid o left join payout_reconciliations r on r.payout_id = o.id
        where o.lines_complete
     ), payout_items as (
       select account_type, account_id, currency, created_at as at, 'payout' as kind, id, amount
         from paid where created_at >= $1::timestamptz and created_at < $2::timestamptz
       union all
       select o.account_type, o.account_id, o.currency, o.created_at, 'unexplained', o.id, o.amount - e.amount
         from paid o join explained e on e.payout_id = o.id
        where o.created_at >= $1::timestamptz and o.created_at < $2::timestamptz and o.amount <> e.amount
       union all
       select account_type, account_id, currency, updated_at, 'payout_reversed', id, amount
         from paid
        where status in ('failed', 'canceled') and updated_at >= $1::timestamptz and updated_at < $2::timestamptz
     ), bank_items as (
       select ${ACCOUNT_TYPE_OF('o')} as account_type, o.account_id, o.currency, bl.value_date as day,
              'bank_credit' as kind, o.id as reference, bl.amount
         from bank_lines bl join payouts o on o.id = bl.payout_id
        where bl.value_date >= ($1::timestamptz at time zone $3::text)::date and bl.value_date < ($2::timestamptz at time zone $3::text)::date
     )
     select account_type, account_id, currency, day::text, kind, reference, amount from daily
     union all
     select account_type, account_id, currency, ((at at time zone $3::text)::date)::text, kind, id, amount::bigint
       from payout_items
     union all
     select account_type, account_id, currency, day::text, kind, reference, amount::bigint from bank_items
     order by 1, 2, 3, 4, 5, 6`,
    [from ?? '-infinity', to, timeZone],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}
