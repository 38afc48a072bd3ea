import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { DAY_MS } from '../domain/days.ts';
import type { Boss } from '../queue/boss.ts';
import { listDisputesDueWithin, type OpenDispute } from './alertQueries.ts';
import type { NewAlert } from './queries.ts';
import { raiseAlerts } from './raiseAlerts.ts';

/**
 * For each open dispute, the most urgent of `thresholdDays` its due date is within (whole UTC days from
 * today; 0 on the day itself), as one alert keyed by dispute and threshold: each threshold alerts once.
 */
export function disputeDeadlineAlerts(
  disputes: OpenDispute[],
  thresholdDays: number[],
  today: string,
): NewAlert[] {
  const thresholds = [...thresholdDays].sort((a, b) => a - b);
  return disputes.flatMap((dispute) => {
    const daysLeft = Math.round((Date.parse(dispute.due_date) - Date.parse(today)) / DAY_MS);
    const crossed = thresholds.find((days) => daysLeft <= days);
    if (daysLeft < 0 || crossed === undefined) return [];
    return [
      {
        dedupeKey: `dispute_due:${dispute.id}:${crossed}`,
        kind: 'dispute_due',
        subjectId: dispute.id,
        accountId: dispute.account_id,
        findingId: dispute.finding_id,
        payload: {
          dispute_id: dispute.id,
          payment_id: dispute.payment_id,
          account_id: dispute.account_id,
          amount: dispute.amount,
          currency: dispute.currency,
          reason: dispute.reason,
          status: dispute.status,
          due_date: dispute.due_date,
          days_left: daysLeft,
          threshold_days: crossed,
        },
      },
    ];
  });
}

/** Raises the dispute deadline alerts due now (DISPUTE_ALERT_DAYS). Returns how many were new. */
export async function raiseDisputeDeadlineAlerts(
  context: { pool: Pool; boss: Boss; config: Pick<Config, 'DISPUTE_ALERT_DAYS' | 'ALERT_DIGEST_MINUTES'> },
  now: Date,
): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  const thresholds = context.config.DISPUTE_ALERT_DAYS;
  const disputes = await listDisputesDueWithin(context.pool, today, Math.max(...thresholds));
  const alerts = disputeDeadlineAlerts(disputes, thresholds, today);
  const ids = await withTransaction(context.pool, (client) =>
    raiseAlerts({ boss: context.boss, client }, context.config, alerts, now),
  );
  return ids.length;
}
