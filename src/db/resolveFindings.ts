import type { FindingDraft } from '../domain/findings.ts';
import type { Queryable } from './pool.ts';

/** Resolves the open findings of a scope that its latest run no longer reports: the data now agrees. */
export async function resolveFindings(db: Queryable, scope: string, stillOpen: FindingDraft[], now: Date) {
  await db.query(
    `update findings set status = 'resolved', resolved_at = $3::timestamptz
      where scope = $1::text and status = 'open'
        and (code, subject_type, subject_id) not in (
          select f.code, f."subjectType", f."subjectId"
            from jsonb_to_recordset($2::jsonb) as f(code text, "subjectType" text, "subjectId" text))`,
    [scope, JSON.stringify(stillOpen), now],
  );
}
