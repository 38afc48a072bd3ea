import type { DailyFeesReturnedWithoutRefundRow, DailyRefundRow } from './dailyPaymentQueries.ts';

export type ReturnedFeesByReasonRow = {
  account_type: string;
  account_id: string;
  currency: string;
  refund: number;
  ach_return: number;
  void: number;
  total: number;
};

/**
 * Per account and currency, the fees returned on the day by why: `refund` is the accounts section's
 * `returned_fees` (the same rows, so the two always agree), `ach_return` and `void` were handed back with
 * no refund object. Net leaves the last two out: it keeps its meaning (fees returned by refunds).
 * Rows with nothing returned are left out; `total` is the sum of the row's reasons.
 */
export function returnedFeesByReason(
  refunds: DailyRefundRow[],
  withoutRefund: DailyFeesReturnedWithoutRefundRow[],
): ReturnedFeesByReasonRow[] {
  const rows = new Map<string, ReturnedFeesByReasonRow>();
  const rowFor = (key: { account_type: string; account_id: string; currency: string }) => {
    const id = `${key.account_type}\u0000${key.account_id}\u0000${key.currency}`;
    let row = rows.get(id);
    if (!row) {
      row = {
        account_type: key.account_type,
        account_id: key.account_id,
        currency: key.currency,
        refund: 0,
        ach_return: 0,
        void: 0,
        total: 0,
      };
      rows.set(id, row);
    }
    return row;
  };
  for (const refund of refunds) rowFor(refund).refund += refund.returned_fees;
  for (const handedBack of withoutRefund) {
    const row = rowFor(handedBack);
    row.ach_return += handedBack.ach_return;
    row.void += handedBack.void;
  }
  return [...rows.values()]
    .map((row) => ({ ...row, total: row.refund + row.ach_return + row.void }))
    .filter((row) => row.refund !== 0 || row.ach_return !== 0 || row.void !== 0)
    .sort((a, b) =>
      `${a.account_type}${a.currency}${a.account_id}`.localeCompare(
        `${b.account_type}${b.currency}${b.account_id}`,
      ),
    );
}
