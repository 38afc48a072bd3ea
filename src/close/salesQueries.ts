import type { Queryable } from '../db/pool.ts';
import {
  CAPTURE_WINDOW,
  COUNTED,
  MANUAL_CAPTURE,
  MANUAL_SUCCEEDED_AT,
  type MovementRow,
  SUCCEEDED_PAYMENT,
} from './movementRules.ts';

/** How finely movements are dated: by business day, or by month (each dated its month's first day). */
export type Granularity = 'day' | 'month';

/** A business day or month of a range: its first day (YYYY-MM-DD) and its instants, cut to the range. */
export type Chunk = { day: string; start: Date; end: Date };

const PAYMENT_CREDITED = `l.source_payment_id = p.id and l.kind = 'payment'`;
const SUMS = `sum(p.amount)::bigint as sale, sum(p.fees_processing)::bigint as fee_processing,
              sum(p.fees_platform)::bigint as fee_platform, sum(p.fees_other)::bigint as fee_other`;

/**
 * The business days (or months) from `from` to `to` in `timeZone`; from the first payment's when `from` is null.
 * Sales are summed per chunk, each chunk a branch of its own, so the planner reads the chunks' payments by the
 * creation index in parallel workers and each sum's day is a constant: grouping a month's payments on a
 * computed business date instead keeps the scan to one process, because the planner cannot tell how few dates
 * there are.
 */
export async function listChunks(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
  granularity: Granularity,
): Promise<Chunk[]> {
  const { rows } = await db.query<Chunk>(
    `with range as (
       select coalesce($1::timestamptz, (select min(created_at) from payments)) as start, $2::timestamptz as "end"
     )
     select d::date::text as day, greatest(d::timestamp at time zone $3::text, start) as start,
            least((d + $4::interval)::timestamp at time zone $3::text, "end") as "end"
       from range,
            generate_series(date_trunc($5::text, start at time zone $3::text), "end" at time zone $3::text, $4::interval) d
      where start < "end" and d::timestamp at time zone $3::text < "end"`,
    [from, to, timeZone, `1 ${granularity}`, granularity],
  );
  return rows;
}

type SalesRow = Omit<MovementRow, 'kind' | 'amount' | 'reference'> & {
  sale: string;
  fee_processing: string;
  fee_platform: string;
  fee_other: string;
};

/**
 * Sales and their fees per account key and chunk (listChunks), from the rows: captured at creation on the
 * creation's day; manual captures on the day they succeeded. Days of manual captures come from their instant;
 * the caller dates them by the chunk they fall in. Those the payout-listing rule leaves out (COUNTED) are taken
 * off by listLeftOutSales.
 */
export async function listSales(
  db: Queryable,
  chunks: Chunk[],
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<MovementRow[]> {
  const branches = chunks.map(
    (_, index) =>
      `select ($1::text[])[${index + 1}] as day, p.account_type, p.account_id, p.currency, ${SUMS}
         from payments p
        where p.created_at >= ($2::timestamptz[])[${index + 1}] and p.created_at < ($3::timestamptz[])[${index + 1}]
          and ${SUCCEEDED_PAYMENT} and (${MANUAL_CAPTURE}) is not true
        group by 2, 3, 4`,
  );
  const captured =
    chunks.length === 0
      ? { rows: [] }
      : await db.query<SalesRow>(branches.join('\nunion all\n'), [
          chunks.map(({ day }) => day),
          chunks.map(({ start }) => start),
          chunks.map(({ end }) => end),
        ]);
  const manual = await db.query<SalesRow>(
    `select ((${MANUAL_SUCCEEDED_AT}) at time zone $3::text)::date::text as day, p.account_type, p.account_id,
            p.currency, ${SUMS}
       from payments p
      where p.created_at >= $1::timestamptz - ${CAPTURE_WINDOW} and p.created_at < $2::timestamptz
        and ${SUCCEEDED_PAYMENT} and ${MANUAL_CAPTURE}
        and ${MANUAL_SUCCEEDED_AT} >= $1::timestamptz and ${MANUAL_SUCCEEDED_AT} < $2::timestamptz
      group by 1, 2, 3, 4`,
    [from ?? '-infinity', to, timeZone],
  );
  const rows = [...captured.rows, ...manual.rows];
  return rows.flatMap(({ sale, fee_processing, fee_platform, fee_other, ...key }) =>
    (
      [
        ['sale', sale],
        ['fee_processing', fee_processing],
        ['fee_platform', fee_platform],
        ['fee_other', fee_other],
      ] as const
    ).map(([kind, amount]) => ({ ...key, kind, reference: null, amount: Number(amount) })),
  );
}

/**
 * The sales (and their fees) that the payout-listing rule leaves out (COUNTED), as negative daily sums to take
 * off the kept or computed ones: only payments older than some account's listing start are read here, by
 * index (a payment succeeds no earlier than it is created, so a manual capture counted before that start was
 * created before it too, and within its authorization's CAPTURE_WINDOW).
 */
export async function listLeftOutSales(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<MovementRow[]> {
  const at = `case when ${MANUAL_CAPTURE} then ${MANUAL_SUCCEEDED_AT} else p.created_at end`;
  const { rows } = await db.query<MovementRow>(
    `select account_type, account_id, currency, day::text, v.kind, null::text as reference, -v.amount as amount
       from (select p.account_type, p.account_id, p.currency, (${at} at time zone $3::text)::date as day,
                    sum(p.amount)::bigint as sale, sum(p.fees_processing)::bigint as fee_processing,
                    sum(p.fees_platform)::bigint as fee_platform, sum(p.fees_other)::bigint as fee_other
               from payments p
              where p.created_at < (select coalesce(max(listed_from), '-infinity') from payout_sync_accounts)
                and p.created_at >= $1::timestamptz - ${CAPTURE_WINDOW} and ${at} >= $1::timestamptz and ${at} < $2::timestamptz and ${SUCCEEDED_PAYMENT}
                and not ${COUNTED('p.account_id', at, PAYMENT_CREDITED)}
              group by 1, 2, 3, 4) left_out,
            lateral (values ('sale', sale), ('fee_processing', fee_processing), ('fee_platform', fee_platform),
                            ('fee_other', fee_other)) as v(kind, amount)
      where v.amount <> 0`,
    [from ?? '-infinity', to, timeZone],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}
