import type { Queryable } from '../db/pool.ts';
import type { FindingDraft } from './findings.ts';
import { mergeDraftsBySubject } from './mergeDrafts.ts';
import { type FindingContext, type FindingRun, resolveFindings, upsertFindings } from './queries.ts';

/**
 * Records the complete result of one reconciliation run for a scope: what it reports is open (created or
 * refreshed), what it no longer reports is resolved. Run it inside the caller's transaction.
 */
export async function recordFindings(
  db: Queryable,
  context: FindingContext,
  drafts: FindingDraft[],
): Promise<void> {
  await recordFindingRuns(db, [{ context, findings: drafts }]);
}

/**
 * `recordFindings` for runs of many scopes at once, in three statements whatever their number. No two runs
 * may report the same (code, subject): the statement then fails (the caller records them one at a time).
 */
export async function recordFindingRuns(db: Queryable, runs: FindingRun[]): Promise<void> {
  const merged = runs.map((run) => ({ context: run.context, findings: mergeDraftsBySubject(run.findings) }));
  await upsertFindings(db, merged);
  await resolveFindings(db, merged);
}
