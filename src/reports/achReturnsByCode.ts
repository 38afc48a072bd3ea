import { classifyAchFailure } from '../reconciliation/achReturns.ts';
import type { DailyAchReturnRow } from './dailyQueries.ts';

/**
 * The day's ACH returns by catalogue code, as the `ach_return` findings classify them: `account_closed` in
 * `error_code` and `ACCOUNT_CLOSED` in `error_description` are one code. Money stays per currency.
 */
export function achReturnsByCode(rows: DailyAchReturnRow[]) {
  const grouped = new Map<
    string,
    { account_type: string; currency: string; code: string; late: boolean; returns: number; amount: number }
  >();
  for (const row of rows) {
    const code = classifyAchFailure(row.error_code, row.error_description)?.code ?? 'unknown';
    const key = [row.account_type, row.currency, code, row.late].join('\u0000');
    const group = grouped.get(key) ?? {
      account_type: row.account_type,
      currency: row.currency,
      code,
      late: row.late,
      returns: 0,
      amount: 0,
    };
    group.returns += row.returns;
    group.amount += row.amount;
    grouped.set(key, group);
  }
  return [...grouped.values()]
    .sort((a, b) =>
      [a.account_type, a.currency, a.code, String(a.late)]
        .join('\u0000')
        .localeCompare([b.account_type, b.currency, b.code, String(b.late)].join('\u0000')),
    )
    .map((group) => {
      const known = classifyAchFailure(group.code, null)?.known;
      return { ...group, category: known?.category ?? 'unknown', retryable: known?.retryable ?? false };
    });
}
