import { type Pool, withTransaction } from '../db/pool.ts';
import type { FindingDraft } from '../findings/findings.ts';
import type { FindingRun } from '../findings/queries.ts';
import { recordFindingRuns } from '../findings/recordFindings.ts';
import type { PeriodReport } from './buildPeriodReport.ts';

/**
 * One run per account and currency whose ledger is listed, for an ended period: `period_held_mismatch` when
 * Tally's held_end and the provider's differ. A stale or unlisted ledger gives no run, so a finding it had is
 * left as it was (a stale listing says nothing new) rather than resolved.
 */
export function heldMismatchRuns(report: PeriodReport, now: Date): FindingRun[] {
  if (new Date(report.to) > now) return [];
  const runs = new Map<string, FindingRun>();
  for (const row of report.accounts) {
    if (row.tie_out.ledger !== 'listed' || row.provider_held_end === null || row.held_difference === null)
      continue;
    const subject = `${report.period}:${row.account_id}:${row.currency}`;
    const run = runs.get(subject) ?? {
      context: { scope: `period-tie-out:${subject}`, accountId: row.account_id, currency: row.currency, now },
      findings: [],
    };
    if (row.held_difference !== 0) {
      const draft: FindingDraft = {
        code: 'period_held_mismatch',
        severity: 'error',
        subjectType: 'period',
        subjectId: subject,
        expected: row.provider_held_end,
        actual: row.walk.held_end,
        atStake: Math.abs(row.held_difference),
        details: {
          period: report.period,
          account_type: row.account_type,
          held_end: row.walk.held_end,
          provider_held_end: row.provider_held_end,
          held_difference: row.held_difference,
          provider_lines_without_item: row.tie_out.provider_lines_without_item,
          items_without_provider_line: row.tie_out.items_without_provider_line,
        },
      };
      run.findings.push(draft);
    }
    runs.set(subject, run);
  }
  return [...runs.values()];
}

/** Opens, refreshes or resolves the period's `period_held_mismatch` findings from its report. */
export async function recordHeldMismatches(pool: Pool, report: PeriodReport, now: Date): Promise<number> {
  const runs = heldMismatchRuns(report, now);
  if (runs.length > 0) await withTransaction(pool, (client) => recordFindingRuns(client, runs));
  return runs.reduce((sum, run) => sum + run.findings.length, 0);
}
