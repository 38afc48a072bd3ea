import type { FindingDraft } from '../domain/findings.ts';
import type { Queryable } from './pool.ts';

export type FindingContext = { scope: string; accountId: string | null; currency: string | null; now: Date };

/** Opens each finding, or refreshes the open one of the same (code, subject): never a duplicate. */
export async function upsertFindings(
  db: Queryable,
  context: FindingContext,
  findings: FindingDraft[],
): Promise<void> {
  if (findings.length === 0) return;
  await db.query(
    `insert into findings (code, severity, subject_type, subject_id, account_id, currency, expected, actual, details,
                           scope, first_seen_at, last_seen_at)
     select f.code, f.severity, f."subjectType", f."subjectId", coalesce(f."accountId", $2::text),
            coalesce(f.currency, $3::text), f.expected, f.actual, f.details,
            $4::text, $5::timestamptz, $5::timestamptz
       from jsonb_to_recordset($1::jsonb)
            as f(code text, severity text, "subjectType" text, "subjectId" text, expected jsonb, actual jsonb, details jsonb,
                 "accountId" text, currency text)
     on conflict (code, subject_type, subject_id) where status = 'open' do update set
       severity = excluded.severity, expected = excluded.expected, actual = excluded.actual,
       details = excluded.details, account_id = excluded.account_id, currency = excluded.currency,
       scope = excluded.scope, last_seen_at = excluded.last_seen_at`,
    [JSON.stringify(findings), context.accountId, context.currency, context.scope, context.now],
  );
}
