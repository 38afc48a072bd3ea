import type { Queryable } from '../db/pool.ts';
import { resolveFindings } from '../db/resolveFindings.ts';
import { type FindingContext, upsertFindings } from '../db/upsertFindings.ts';
import type { FindingDraft } from '../domain/findings.ts';

/**
 * Records the complete result of one reconciliation run for a scope: what it reports is open (created or
 * refreshed), what it no longer reports is resolved. Run it inside the caller's transaction.
 */
export async function recordFindings(
  db: Queryable,
  context: FindingContext,
  findings: FindingDraft[],
): Promise<void> {
  await upsertFindings(db, context, findings);
  await resolveFindings(db, context.scope, findings, context.now);
}
