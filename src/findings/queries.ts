import type { Queryable } from '../db/pool.ts';
import { appendFindingChanges, appendHistoryChanges } from './findingChanges.ts';
import type { FindingCode, FindingDraft } from './findings.ts';

export type FindingContext = { scope: string; accountId: string | null; currency: string | null; now: Date };

/** One reconciliation run of a scope: everything it reports. */
export type FindingRun = { context: FindingContext; findings: FindingDraft[] };

// Each draft with its run's scope, account, currency and time, for one statement over many runs.
const draftsOfRuns = (runs: FindingRun[]) =>
  JSON.stringify(
    runs.flatMap(({ context, findings }) =>
      findings.map((finding) => ({
        ...finding,
        scope: context.scope,
        runAccountId: context.accountId,
        runCurrency: context.currency,
        seenAt: context.now,
      })),
    ),
  );

/**
 * Opens each finding of the runs, or refreshes the current one of the same (code, subject): never a
 * duplicate. A person's status stays (acknowledged is still checked), except that an accepted finding whose
 * expected or actual value changed is closed first (`supersede`), so a new open finding follows: what was
 * accepted is not what is seen. Two runs reporting one (code, subject) make the statement fail.
 */
export async function upsertFindings(db: Queryable, runs: FindingRun[]): Promise<void> {
  if (runs.every((run) => run.findings.length === 0)) return;
  const drafts = draftsOfRuns(runs);
  const superseded = await db.query(
    `with superseded as (
       update findings f set status = 'resolved', resolved_at = d."seenAt"
         from jsonb_to_recordset($1::jsonb)
              as d(code text, "subjectType" text, "subjectId" text, expected jsonb, actual jsonb, "seenAt" timestamptz)
        where f.status = 'accepted' and f.code = d.code and f.subject_type = d."subjectType"
          and f.subject_id = d."subjectId"
          and (f.expected is distinct from d.expected or f.actual is distinct from d.actual)
       returning f.id, f.resolved_at)
     ${historyOfSuperseded('resolved_at')}
     ${CHANGED_IN_HISTORY}`,
    [drafts],
  );
  await appendHistoryChanges(db, superseded.rows);
  const upserted = await db.query<{ id: number; opened: boolean; first_seen_at: Date }>(
    `insert into findings (code, severity, subject_type, subject_id, account_id, currency, expected, actual, at_stake,
                           details, scope, first_seen_at, last_seen_at)
     select f.code, f.severity, f."subjectType", f."subjectId", coalesce(f."accountId", f."runAccountId"),
            coalesce(f.currency, f."runCurrency"), f.expected, f.actual, f."atStake", f.details,
            f.scope, f."seenAt", f."seenAt"
       from jsonb_to_recordset($1::jsonb)
            as f(code text, severity text, "subjectType" text, "subjectId" text, expected jsonb, actual jsonb,
                 "atStake" bigint, details jsonb, "accountId" text, currency text, scope text, "runAccountId" text,
                 "runCurrency" text, "seenAt" timestamptz)
     on conflict (code, subject_type, subject_id) where status <> 'resolved' do update set
       severity = excluded.severity, expected = excluded.expected, actual = excluded.actual,
       at_stake = excluded.at_stake, details = excluded.details, account_id = excluded.account_id,
       currency = excluded.currency, scope = excluded.scope, last_seen_at = excluded.last_seen_at
     returning id, xmax = 0 as opened, first_seen_at`,
    [drafts],
  );
  // An insert (xmax 0) opened a finding; an update refreshed one, which changes no status.
  await appendFindingChanges(
    db,
    upserted.rows
      .filter((row) => row.opened)
      .map((row) => ({ findingId: row.id, type: 'finding.opened', at: row.first_seen_at })),
  );
}

/**
 * Resolves the current findings of each run's scope that the run no longer reports: the data now agrees.
 * Acknowledged and accepted ones too; each resolution is kept in the history as the system's.
 */
export async function resolveFindings(db: Queryable, runs: FindingRun[]) {
  if (runs.length === 0) return;
  const resolved = await db.query(
    `with reported as materialized (
       select * from jsonb_to_recordset($2::jsonb) as d(scope text, code text, "subjectType" text, "subjectId" text)
     ),
     resolved as (
       update findings f set status = 'resolved', resolved_at = run."seenAt"
         from findings before, jsonb_to_recordset($1::jsonb) as run(scope text, "seenAt" timestamptz)
        where before.id = f.id and f.scope = run.scope and f.status <> 'resolved'
          and not exists (
            select from reported d
             where d.scope = f.scope and d.code = f.code and d."subjectType" = f.subject_type
               and d."subjectId" = f.subject_id)
       returning f.id, before.status as old_status, f.resolved_at)
     ${HISTORY_OF_RESOLVED}
     ${CHANGED_IN_HISTORY}`,
    [
      JSON.stringify(runs.map(({ context }) => ({ scope: context.scope, seenAt: context.now }))),
      draftsOfRuns(runs),
    ],
  );
  await appendHistoryChanges(db, resolved.rows);
}

/** The actor of changes Tally makes itself (reconciliation resolving or superseding a finding). */
export const SYSTEM_ACTOR = 'tally';

/** Completes a `with superseded as (update … set status = 'resolved' where status = 'accepted' … returning id)`. */
export const historyOfSuperseded = (at: string) =>
  `insert into finding_history (finding_id, actor, action, old_status, new_status, note, created_at)
     select id, '${SYSTEM_ACTOR}', 'supersede', 'accepted', 'resolved',
            'expected or actual changed after it was accepted: a new open finding follows', ${at}
       from superseded`;

/** Ends a history insert: the rows the changes feed turns into finding changes (`appendHistoryChanges`). */
export const CHANGED_IN_HISTORY = 'returning finding_id, action, old_status, new_status, created_at';

// Completes a `with resolved as (update … returning id, old_status, resolved_at)`.
const HISTORY_OF_RESOLVED = `insert into finding_history (finding_id, actor, action, old_status, new_status, created_at)
     select id, '${SYSTEM_ACTOR}', 'resolve', old_status, 'resolved', resolved_at from resolved`;

/** Subjects of the open findings of one code, e.g. the broken `account:fee_type` chains. */
export async function listOpenFindingSubjects(db: Queryable, code: FindingCode): Promise<Set<string>> {
  const { rows } = await db.query<{ subject_id: string }>(
    `select subject_id from findings where code = $1::text and status <> 'resolved'`,
    [code],
  );
  return new Set(rows.map((row) => row.subject_id));
}

/**
 * Resolves `event_missed` of these objects once a webhook delivery brought the missed state or a newer
 * one: the provider's retry got through after all.
 */
export async function resolveDeliveredMissedEvents(db: Queryable, subjectIds: string[], now: Date) {
  if (subjectIds.length === 0) return;
  const resolved = await db.query(
    `with resolved as (
       update findings f set status = 'resolved', resolved_at = $2::timestamptz, last_seen_at = $2::timestamptz
         from findings before,
              (select id, delivered_updated_at from payments where id = any($1::text[])
               union all
               select id, delivered_updated_at from forwarding_requests where id = any($1::text[])) delivered
        where before.id = f.id and f.code = 'event_missed' and f.status <> 'resolved' and f.subject_id = delivered.id
          and delivered.delivered_updated_at >= (f.details ->> 'api_updated_at')::timestamptz
       returning f.id, before.status as old_status, f.resolved_at)
     ${HISTORY_OF_RESOLVED}
     ${CHANGED_IN_HISTORY}`,
    [subjectIds, now],
  );
  await appendHistoryChanges(db, resolved.rows);
}
