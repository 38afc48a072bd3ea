import type { Queryable } from '../db/pool.ts';

export type UnexplainedByFindingRow = { account_id: string; currency: string; code: string; amount: number };

/**
 * The part of the period's `unexplained` that findings not resolved explain, per account, currency and code: a
 * line's amount less Tally's value for it under its `payout_line_mismatch` or `payout_payment_unknown`, and a
 * payout's amount less its lines' sum under its `payout_total_mismatch`.
 */
export async function sumUnexplainedByFinding(
  db: Queryable,
  from: Date,
  to: Date,
): Promise<UnexplainedByFindingRow[]> {
  const { rows } = await db.query<UnexplainedByFindingRow>(
    `with paid as (
       select id, account_id, currency, amount from payouts
        where created_at >= $1::timestamptz and created_at < $2::timestamptz and lines_complete
     ), line_differences as (
       select o.account_id, o.currency, f.code,
              l.net - case when c.status in ('ok', 'mismatch') then coalesce(c.expected, 0) else 0 end as amount
         from paid o join payout_lines l on l.payout_id = o.id and l.kind <> 'payout'
         join payout_line_checks c on c.line_id = l.id
         join findings f on f.subject_type = 'balance_transaction' and f.subject_id = l.id and f.status <> 'resolved'
          and f.code in ('payout_line_mismatch', 'payout_payment_unknown')
     ), total_differences as (
       select o.account_id, o.currency, f.code,
              o.amount - (select coalesce(sum(l.net), 0) from payout_lines l where l.payout_id = o.id and l.kind <> 'payout') as amount
         from paid o join findings f on f.subject_type = 'payout' and f.subject_id = o.id and f.status <> 'resolved'
          and f.code = 'payout_total_mismatch'
     )
     select account_id, currency, code, sum(amount)::bigint as amount
       from (select * from line_differences union all select * from total_differences) differences
      group by 1, 2, 3
     having sum(amount) <> 0
      order by 1, 2, 3`,
    [from, to],
  );
  return rows;
}
