import { rowsPerAccount } from './accountRows.ts';
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
  const { rowFor, sorted } = rowsPerAccount<ReturnedFeesByReasonRow>((key) => ({
    ...key,
    refund: 0,
    ach_return: 0,
    void: 0,
    total: 0,
  }));
  for (const refund of refunds) rowFor(refund).refund += refund.returned_fees;
  for (const handedBack of withoutRefund) {
    const row = rowFor(handedBack);
    row.ach_return += handedBack.ach_return;
    row.void += handedBack.void;
  }
  return sorted()
    .map((row) => ({ ...row, total: row.refund + row.ach_return + row.void }))
    .filter((row) => row.refund !== 0 || row.ach_return !== 0 || row.void !== 0);
}
