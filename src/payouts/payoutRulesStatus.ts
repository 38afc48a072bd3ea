import type { FindingDraft } from '../findings/findings.ts';
import type { PayoutToCheck } from './payoutFactsQueries.ts';

const HOUR_MS = 3600 * 1000;

// A payout in one of these has landed or ended: it can no longer be overdue.
const SETTLED_STATUSES = new Set(['paid', 'failed', 'canceled', 'forwarded']);

/** When a payout not yet settled becomes overdue, or null when it cannot be (settled, or no `deposits_at`). */
function payoutOverdueAt(payout: PayoutToCheck, overdueHours: number): Date | null {
  if (SETTLED_STATUSES.has(payout.status) || payout.depositsAt === null) return null;
  return new Date(payout.depositsAt.getTime() + overdueHours * HOUR_MS);
}

/**
 * Rule 4, payouts land: `payout_failed` (error), `payout_canceled` (warning), and `payout_overdue` (warning:
 * late, not yet known lost) for a payout still not `paid` `PAYOUT_OVERDUE_HOURS` after its `deposits_at`
 * (`forwarded` counts as landed). At stake: the payout's amount.
 */
export function checkPayoutStatus(payout: PayoutToCheck, overdueHours: number, now: Date): FindingDraft[] {
  const subject = { subjectType: 'payout', subjectId: payout.id };
  const about = {
    status: payout.status,
    payout_type: payout.payoutType,
    deposits_at: payout.depositsAt?.toISOString() ?? null,
    amount: payout.amount,
  };
  const atStake = Math.abs(payout.amount);
  if (payout.status === 'failed' || payout.status === 'canceled')
    return [
      {
        code: payout.status === 'failed' ? 'payout_failed' : 'payout_canceled',
        severity: payout.status === 'failed' ? 'error' : 'warning',
        ...subject,
        expected: 'paid',
        actual: payout.status,
        details: about,
        atStake,
      },
    ];
  const overdueAt = payoutOverdueAt(payout, overdueHours);
  if (overdueAt === null || overdueAt > now) return [];
  return [
    {
      code: 'payout_overdue',
      severity: 'warning',
      ...subject,
      expected: 'paid',
      actual: payout.status,
      details: { ...about, overdue_since: overdueAt.toISOString() },
      atStake,
    },
  ];
}
