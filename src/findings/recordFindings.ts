import type { Queryable } from '../db/pool.ts';
import type { FindingDraft } from './findings.ts';
import { mergeDraftsBySubject } from './mergeDrafts.ts';
import { type FindingContext, resolveFindings, upsertFindings } from './queries.ts';

/**
 * Records the complete result of one reconciliation run for a scope: what it reports is open (created or
 * refreshed), what it no longer reports is resolved. Run it inside the caller's transaction.
 */
export async function recordFindings(
  db: Queryable,
  context: FindingContext,
  drafts: FindingDraft[],
): Promise<void> {
  const findings = mergeDraftsBySubject(drafts);
  await upsertFindings(db, context, findings);
  await resolveFindings(db, context.scope, findings, context.now);
}
