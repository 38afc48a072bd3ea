import type { Queryable } from '../db/pool.ts';
import { SUCCEEDED_REFUND } from '../reports/dailyPaymentQueries.ts';
import { listKeptDays } from './keptDayQueries.ts';
import { ACCOUNT_MODES, ACCOUNT_TYPE_OF, COUNTED, FEE_KIND, type MovementRow } from './movementRules.ts';
import { listLeftOutRefunds, listRefundSums } from './refundSumQueries.ts';
import { type Granularity, listChunks, listLeftOutSales, listSales } from './salesQueries.ts';

// An ACH return or a dispute is contained when a synced payout has any line of its payment.
const DISPUTE_PAID = `l.source_payment_id = d.payment_id`;

/**
 * Every movement of money Tally knows between two instants, each on its business day in `timeZone` (docs/month-end.md,
 * "When each item counts"), or summed per month: sales and their fees when the payment succeeded; refunds and
 * the fees they returned on the refund's creation; ACH returns and the fees they handed back when the payment
 * first showed failed; disputes withdrawn on creation and returned when won; payouts on creation, reversed when
 * they failed or were canceled, met by a bank credit on its value date; and each synced payout's `unexplained`:
 * its amount less what Tally's activity says its lines are. Set-based: a few grouped scans, summed here.
 */
export async function listMovements(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
  granularity: Granularity = 'day',
): Promise<MovementRow[]> {
  const parts = [
    await listSalesAndRefunds(db, from, to, timeZone, granularity),
    await listLeftOutSales(db, from, to, timeZone),
    await listLeftOutRefunds(db, from, to, timeZone),
    await listOtherMovements(db, from, to, timeZone),
  ];
  // Each row is this call's own: dated and summed in place. In no order: every caller sums or sorts what it keeps.
  const sums = new Map<string, MovementRow>();
  const rows: MovementRow[] = [];
  for (const part of parts)
    for (const row of part) {
      if (granularity === 'month') row.day = `${row.day.slice(0, 7)}-01`;
      if (row.reference !== null) {
        rows.push(row);
        continue;
      }
      const key = `${row.account_type}\u0000${row.account_id}\u0000${row.currency}\u0000${row.day}\u0000${row.kind}`;
      const sum = sums.get(key);
      if (sum) sum.amount += row.amount;
      else sums.set(key, row);
    }
  for (const row of sums.values()) if (row.amount !== 0) rows.push(row);
  return rows;
}

/**
 * Sales, their fees, refunds and returned fees, before the payout-listing rule takes its part off: from the
 * days kept as money moves for the whole business days of the range (listKeptDays), and from the rows for its
 * edges (an instant such as now), for the refunds without an account key yet, and for the whole range when the
 * days are not kept in `timeZone`.
 */
export async function listSalesAndRefunds(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
  granularity: Granularity,
): Promise<MovementRow[]> {
  const kept = await listKeptDays(db, from, to, timeZone);
  if (kept === null) return listFromRows(db, from, to, timeZone, granularity);
  const { start, end } = kept;
  return [
    ...kept.rows,
    // Few: dated by conversion.
    ...(await listRefundSums(db, [], start, end, timeZone, 'keyless')),
    ...(from !== null && start !== null && from < start
      ? await listFromRows(db, from, start, timeZone, granularity)
      : []),
    ...(end < to ? await listFromRows(db, end, to, timeZone, granularity) : []),
  ];
}

/** The sales and refunds between two instants, from the rows. */
export async function listFromRows(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
  granularity: Granularity,
): Promise<MovementRow[]> {
  const chunks = await listChunks(db, from, to, timeZone, granularity);
  return [
    ...(await listSales(db, chunks, from, to, timeZone)),
    ...(await listRefundSums(db, chunks, from, to, timeZone, 'all')),
  ];
}

/**
 * ACH returns and the fees they handed back, disputes, payouts and their reversals, payouts' unexplained, and
 * bank credits: daily sums per account key and kind, payouts one by one.
 */
async function listOtherMovements(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<MovementRow[]> {
  const { rows } = await db.query<MovementRow>(
    `with ${ACCOUNT_MODES}, returned as (
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
       select h.account_type, h.account_id, h.currency, h.at, 'fee_returned_' || ${FEE_KIND('f.type')},
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
     ), paid as (
       select o.id, o.account_id, ${ACCOUNT_TYPE_OF('o', 'm')} as account_type, o.currency, o.amount,
              o.created_at, o.status, o.updated_at, o.lines_complete
         from payouts o left join account_modes m on m.account_id = o.account_id
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
       select ${ACCOUNT_TYPE_OF('o', 'm')} as account_type, o.account_id, o.currency, bl.value_date as day,
              'bank_credit' as kind, o.id as reference, bl.amount
         from bank_lines bl join payouts o on o.id = bl.payout_id left join account_modes m on m.account_id = o.account_id
        where bl.value_date >= ($1::timestamptz at time zone $3::text)::date and bl.value_date < ($2::timestamptz at time zone $3::text)::date
     )
     select account_type, account_id, currency, (at at time zone $3::text)::date::text as day, kind,
            null::text as reference, sum(amount)::bigint as amount
       from (select * from return_items union all select * from dispute_items) items
      group by 1, 2, 3, 4, 5
     union all
     select account_type, account_id, currency, ((at at time zone $3::text)::date)::text, kind, id, amount::bigint
       from payout_items
     union all
     select account_type, account_id, currency, day::text, kind, reference, amount::bigint from bank_items`,
    [from ?? '-infinity', to, timeZone],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}
