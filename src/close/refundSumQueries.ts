import type { Queryable } from '../db/pool.ts';
import { SUCCEEDED_REFUND } from '../reports/dailyPaymentQueries.ts';
import { COUNTED, FEE_KIND, KEYLESS_REFUNDS, type MovementRow, REFUNDS_WITH_KEY } from './movementRules.ts';
import type { Chunk } from './salesQueries.ts';

/**
 * Refunds on the refund's creation (its first snapshot when the provider gave none) and the fees they returned,
 * summed per account key, chunk (listChunks) and kind, from the rows: every refund, or (`keyless`) only those
 * without an account key, which the kept days leave out (keptDayQueries.ts).
 */
export async function listRefundSums(
  db: Queryable,
  chunks: Chunk[],
  from: Date | null,
  to: Date,
  timeZone: string,
  refunds: 'all' | 'keyless',
): Promise<MovementRow[]> {
  const source = refunds === 'all' ? REFUNDS_WITH_KEY : KEYLESS_REFUNDS;
  const { rows } = await db.query<MovementRow>(refundSums({ source, refunds: '', items: '' }, 1), [
    ...rangeOf(from, to, timeZone),
    chunks.map(({ day }) => day),
    chunks.map(({ start }) => start),
  ]);
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}

/**
 * The refunds and returned fees that the payout-listing rule leaves out (COUNTED), as negative daily sums:
 * only refunds older than some account's listing start are read, by the index of their creation (the newest
 * listing start read first, so the planner knows how few those are), and dated by conversion.
 */
export async function listLeftOutRefunds(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<MovementRow[]> {
  const newest = await db.query<{ listed_from: Date | null }>(
    'select max(listed_from) as listed_from from payout_sync_accounts',
  );
  const listedFrom = newest.rows[0]?.listed_from;
  if (!listedFrom) return [];
  const { rows } = await db.query<MovementRow>(
    refundSums(
      {
        source: REFUNDS_WITH_KEY,
        refunds: `and (r.created_at < $6::timestamptz or r.created_at is null and r.updated_at < $6::timestamptz)`,
        items: `where not ${COUNTED('i.account_id', 'i.at', `l.source_id = i.refund_id and l.kind = 'refund'`)}`,
      },
      -1,
    ),
    [...rangeOf(from, to, timeZone), [], [], listedFrom],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}

const rangeOf = (from: Date | null, to: Date, timeZone: string) => [from ?? '-infinity', to, timeZone];

/**
 * The refunds of `where.source` between $1 and $2 that meet `where.refunds`, and the fees they returned, as
 * items `i` (account key, refund_id, at, day, kind, amount) that meet `where.items`, summed times `sign`: each
 * refund with the account key it carries (REFUNDS_WITH_KEY), so no payment is read but those of the few
 * refunds without one.
 */
function refundSums(where: { source: string; refunds: string; items: string }, sign: 1 | -1) {
  const refunded = `${where.source} r
     where r.status in ${SUCCEEDED_REFUND} ${where.refunds}
       and (r.created_at >= $1::timestamptz and r.created_at < $2::timestamptz
            or r.created_at is null and r.updated_at >= $1::timestamptz and r.updated_at < $2::timestamptz)`;
  // The chunk found by a binary search of the chunks' starts ($5) costs a fraction of converting each refund's
  // instant to its zone's date; one before the first chunk (older than every payment), or with no chunks
  // given, is dated by conversion.
  const at = 'coalesce(r.created_at, r.updated_at)';
  const item = `r.account_type, r.account_id, r.currency, r.id as refund_id, ${at} as at,
                coalesce(($4::text[])[width_bucket(${at}, $5::timestamptz[])], (${at} at time zone $3::text)::date::text)
                  as day`;
  return `select account_type, account_id, currency, day, kind, null::text as reference,
                 ${sign} * sum(amount)::bigint as amount
            from (select ${item}, 'refund' as kind, r.amount from ${refunded}
                  union all
                  select ${item}, 'fee_returned_' || ${FEE_KIND('f.type')}, f.returned_amount
                    from returned_fees f cross join ${refunded} and r.id = f.refund_id and f.returned_amount <> 0) i
           ${where.items}
           group by 1, 2, 3, 4, 5`;
}
