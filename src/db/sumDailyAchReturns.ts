import type { Queryable } from './pool.ts';

export type DailyAchReturnRow = {
  account_type: string;
  currency: string;
  error_code: string | null;
  error_description: string | null;
  late: boolean;
  returns: number;
  amount: number;
};

/**
 * The day's ACH returns (payments that failed that day with an error code or description), by what the
 * provider sent; the caller classifies them (the code may be in either field, in either case).
 */
export async function sumDailyAchReturns(db: Queryable, from: Date, to: Date): Promise<DailyAchReturnRow[]> {
  const { rows } = await db.query<DailyAchReturnRow>(
    `select account_type, currency, error_code, error_description, succeeded_at is not null as late,
            count(*)::int as returns, sum(amount)::bigint as amount
       from payments
      where method_kind = 'ach' and status = 'failed'
        and (error_description is not null or error_code is not null)
        and failed_at >= $1::timestamptz and failed_at < $2::timestamptz
      group by 1, 2, 3, 4, 5
      order by 1, 2, 3, 4, 5`,
    [from, to],
  );
  return rows;
}
