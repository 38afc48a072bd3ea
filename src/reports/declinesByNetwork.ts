import type { Queryable } from '../db/pool.ts';
import { RETRY_ADVICE, type RetryAdvice } from '../domain/declines.ts';
import type { Section } from './sectionShape.ts';

type DailyDeclineGroup = {
  account_type: string;
  account_id: string;
  currency: string;
  network: string;
  advice: RetryAdvice;
  code: string;
  declines: number;
  amount: number;
};

/**
 * The day's declines (failed card payments attempted in [from, to)), grouped by account, currency, network
 * (upper case; `none` when the provider named none), advice and decline code (`none` when there was none).
 */
async function sumDailyDeclines(db: Queryable, from: Date, to: Date): Promise<DailyDeclineGroup[]> {
  const { rows } = await db.query<DailyDeclineGroup>(
    `select account_type, account_id, coalesce(currency, '') as currency,
            coalesce(upper(network), 'none') as network, retry_advice as advice,
            coalesce(decline_code, 'none') as code, count(*)::int as declines,
            coalesce(sum(amount), 0)::bigint as amount
       from payments
      where status = 'failed' and retry_advice is not null
        and coalesce(created_at, updated_at) >= $1::timestamptz and coalesce(created_at, updated_at) < $2::timestamptz
      group by 1, 2, 3, 4, 5, 6
      order by 1, 2, 3, 4, 5, 6`,
    [from, to],
  );
  return rows;
}

export type DailyDeclineRow = {
  account_type: string;
  account_id: string;
  currency: string;
  network: string;
  declines: number;
  amount: number;
  by_advice: Record<RetryAdvice, number>;
  by_code: Record<string, number>;
};

/** The daily report's `declines`: per account, currency and network, the count, amount, by advice and by code. */
export async function declinesByNetwork(db: Queryable, from: Date, to: Date): Promise<DailyDeclineRow[]> {
  const rows = new Map<string, DailyDeclineRow>();
  for (const group of await sumDailyDeclines(db, from, to)) {
    const key = [group.account_type, group.account_id, group.currency, group.network].join('\u0000');
    const row = rows.get(key) ?? {
      account_type: group.account_type,
      account_id: group.account_id,
      currency: group.currency,
      network: group.network,
      declines: 0,
      amount: 0,
      by_advice: Object.fromEntries(RETRY_ADVICE.map((advice) => [advice, 0])) as Record<RetryAdvice, number>,
      by_code: {},
    };
    row.declines += group.declines;
    row.amount += group.amount;
    row.by_advice[group.advice] += group.declines;
    row.by_code[group.code] = (row.by_code[group.code] ?? 0) + group.declines;
    rows.set(key, row);
  }
  // Codes in code order, whatever order the advice grouping gave them.
  const byCodeName = ([a]: [string, number], [b]: [string, number]) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows.values()].map((row) => ({
    ...row,
    by_code: Object.fromEntries(Object.entries(row.by_code).sort(byCodeName)),
  }));
}

/** The `declines` section for CSV and HTML: one column per advice, the codes as `code: n` pairs. */
export function declinesSection(rows: DailyDeclineRow[]): Section {
  return {
    name: 'declines',
    title: 'Card declines per account, currency and network: by retry advice and by decline code',
    columns: [
      'account_type',
      'account_id',
      'currency',
      'network',
      'declines',
      'amount',
      ...RETRY_ADVICE,
      'by_code',
    ],
    money: ['amount'],
    rows: rows.map(({ by_advice: byAdvice, by_code: byCode, ...row }) => ({
      ...row,
      ...byAdvice,
      by_code: Object.entries(byCode)
        .map(([code, count]) => `${code}: ${count}`)
        .join('; '),
    })),
  };
}
