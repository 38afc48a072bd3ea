import type { Page, Queryable } from '../db/pool.ts';
import { appendFindingChanges, appendHistoryChanges } from './findingChanges.ts';
import type { FindingCode, FindingDraft } from './findings.ts';
import { FINDING_COLUMNS } from './presentFinding.ts';

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

export type FindingFilter = {
  code?: string | undefined;
  status?: string | undefined;
  subjectId?: string | undefined;
  paymentId?: string | undefined;
  accountId?: string | undefined;
  currency?: string | undefined;
  /** first_seen_at in [from, to) */
  from?: Date | undefined;
  to?: Date | undefined;
};

/** `newest`: by id, newest first; `at_stake`: most money at stake first, those that measure none last. */
export const FINDING_ORDERS = ['newest', 'at_stake'] as const;
export type FindingOrder = (typeof FINDING_ORDERS)[number];

// The sort key of each order; money at stake is never negative, so -1 sorts the unmeasured last.
const SORT_KEY: Record<FindingOrder, string[]> = {
  newest: ['id'],
  at_stake: ['coalesce(at_stake, -1)', 'id'],
};

// The sort key of the cursor's row ($n: its id): the page starts past it.
const boundOf = (order: FindingOrder, n: number) =>
  order === 'newest'
    ? `$${n}::bigint`
    : `(select ${SORT_KEY[order].join(', ')} from findings where id = $${n}::bigint)`;

export type FindingRow = Record<string, unknown> & { id: number };

/**
 * Findings in `order` (newest first unless told), filtered, one page plus one row (so the caller knows if
 * there is more). The page's cursors are row ids: the sort key of the cursor's row bounds the page.
 * `paymentId` matches findings about the payment or anything of it (fees, refunds, returned fees).
 */
export async function listFindings(
  db: Queryable,
  filter: FindingFilter,
  page: Page,
  order: FindingOrder = 'newest',
): Promise<FindingRow[]> {
  const backwards = page.beforeId !== null;
  const key = `(${SORT_KEY[order].join(', ')})`;
  const direction = backwards ? 'asc' : 'desc';
  const { rows } = await db.query<FindingRow>(
    `select ${FINDING_COLUMNS} from findings
      where ($1::text is null or code = $1::text)
        and ($2::text is null or status = $2::text)
        and ($3::text is null or subject_id = $3::text)
        and ($4::text is null or subject_id = $4::text or details->>'payment_id' = $4::text)
        and ($5::bigint is null or ${key} < ${boundOf(order, 5)})
        and ($6::bigint is null or ${key} > ${boundOf(order, 6)})
        and ($8::text is null or account_id = $8::text)
        and ($9::text is null or currency = $9::text)
        and ($10::timestamptz is null or first_seen_at >= $10::timestamptz)
        and ($11::timestamptz is null or first_seen_at < $11::timestamptz)
      order by ${SORT_KEY[order].map((term) => `${term} ${direction}`).join(', ')}
      limit $7::int`,
    [
      filter.code ?? null,
      filter.status ?? null,
      filter.subjectId ?? null,
      filter.paymentId ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
      filter.accountId ?? null,
      filter.currency ?? null,
      filter.from ?? null,
      filter.to ?? null,
    ],
  );
  return rows;
}

export type AchReturnFilter = { code?: string; category?: string; late?: boolean; accountId?: string };

/** ACH returns (the `ach_return` findings) newest first, filtered, one page plus one row. */
export async function listAchReturns(db: Queryable, filter: AchReturnFilter, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<Record<string, unknown> & { id: number }>(
    `select id, subject_id as payment_id, account_id, currency, details->>'code' as code,
            details->>'category' as category, (details->>'retryable')::boolean as retryable,
            (details->>'known')::boolean as known, (details->>'late')::boolean as late,
            (details->>'amount')::bigint as amount, details->>'meaning' as meaning,
            details->>'error_code' as error_code, details->>'description' as description,
            details->>'succeeded_at' as succeeded_at, details->>'failed_at' as failed_at,
            status, first_seen_at
       from findings
      where code = 'ach_return'
        and ($1::text is null or upper(details->>'code') = upper($1::text))
        and ($2::text is null or details->>'category' = $2::text)
        and ($3::boolean is null or (details->>'late')::boolean = $3::boolean)
        and ($4::text is null or account_id = $4::text)
        and ($5::bigint is null or id < $5::bigint) and ($6::bigint is null or id > $6::bigint)
      order by id ${backwards ? 'asc' : 'desc'}
      limit $7::int`,
    [
      filter.code ?? null,
      filter.category ?? null,
      filter.late ?? null,
      filter.accountId ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
    ],
  );
  return rows;
}

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
