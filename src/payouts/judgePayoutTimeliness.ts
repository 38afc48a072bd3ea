import { type Pool, withTransaction } from '../db/pool.ts';
import { listOpenFindingSubjects } from '../findings/queries.ts';
import { recordFindingRuns } from '../findings/recordFindings.ts';
import { loadPaymentPayoutFacts } from './paymentPayoutQueries.ts';
import { findPayouts, lockPayoutVersions } from './payoutFactsQueries.ts';
import { listOverduePayouts, listPaymentsAwaitingPayout } from './payoutScanQueries.ts';
import { type PayoutSettings, paymentPayoutRuns, payoutStatusRuns } from './reconcilePayouts.ts';

/** What one scan judged. */
export type PayoutTimelinessSummary = { payments: number; payouts: number };

/**
 * The time-based half of payout reconciliation, for the clock: payments awaiting payout past
 * `PAYOUT_EXPECTED_DAYS` (rule 3, `payment_not_paid_out`) and payouts not paid `PAYOUT_OVERDUE_HOURS` after
 * their `deposits_at` (rule 4, `payout_overdue`). The subjects of those findings still open are judged again
 * too, so each resolves once the payment is paid out (or refunded, failed) and the payout lands. Records the
 * same complete runs as `reconcilePayouts` (scopes `payout-payment:<id>` and `payout-status:<id>`).
 */
export async function judgePayoutTimeliness(
  pool: Pool,
  settings: PayoutSettings,
  now: Date,
): Promise<PayoutTimelinessSummary> {
  const days = Object.values(settings.PAYOUT_EXPECTED_DAYS);
  const { payments, payouts } = await withTransaction(pool, async (client) => {
    await client.query('set transaction isolation level repeatable read, read only');
    const awaiting =
      days.length === 0 ? [] : await listPaymentsAwaitingPayout(client, now, Math.min(...days));
    const notPaidOut = await listOpenFindingSubjects(client, 'payment_not_paid_out');
    const overdue = await listOverduePayouts(client, now, settings.PAYOUT_OVERDUE_HOURS);
    const stillOverdue = await listOpenFindingSubjects(client, 'payout_overdue');
    return {
      payments: await loadPaymentPayoutFacts(client, [...new Set([...awaiting, ...notPaidOut])]),
      payouts: await findPayouts(client, [...new Set([...overdue, ...stillOverdue])]),
    };
  });
  await withTransaction(pool, async (client) => {
    // A payout changed since it was read is left to the judgement its change queued.
    const versions = await lockPayoutVersions(
      client,
      payouts.map((payout) => payout.id),
    );
    const current = payouts.filter((payout) => versions.get(payout.id) === payout.version);
    await recordFindingRuns(client, [
      ...paymentPayoutRuns(payments, settings.PAYOUT_EXPECTED_DAYS, now),
      ...payoutStatusRuns(current, settings.PAYOUT_OVERDUE_HOURS, now),
    ]);
  });
  return { payments: payments.length, payouts: payouts.length };
}
