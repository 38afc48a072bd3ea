import type { Queryable } from '../db/pool.ts';
import type { Page } from '../findings/queries.ts';
import type { Authorization } from './captureExpiry.ts';

export type NewAlert = {
  dedupeKey: string;
  kind: string;
  subjectId: string;
  accountId: string | null;
  payload: unknown;
};

/** Inserts the alerts not raised before (by dedupe key) and returns the ids of the new ones only. */
export async function insertAlerts(db: Queryable, alerts: NewAlert[], now: Date): Promise<number[]> {
  if (alerts.length === 0) return [];
  const { rows } = await db.query<{ id: number }>(
    `insert into alerts (dedupe_key, kind, subject_id, account_id, payload, created_at)
     select a."dedupeKey", a.kind, a."subjectId", a."accountId", a.payload, $2::timestamptz
       from jsonb_to_recordset($1::jsonb) as a("dedupeKey" text, kind text, "subjectId" text, "accountId" text, payload jsonb)
     on conflict (dedupe_key) do nothing
     returning id`,
    [JSON.stringify(alerts), now],
  );
  return rows.map((row) => row.id);
}

export type AlertRow = {
  id: number;
  dedupe_key: string;
  kind: string;
  subject_id: string;
  account_id: string | null;
  payload: Record<string, unknown>;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
};

export async function findAlert(db: Queryable, id: number): Promise<AlertRow | null> {
  const { rows } = await db.query<AlertRow>('select * from alerts where id = $1::bigint', [id]);
  return rows[0] ?? null;
}

/** Counts one delivery attempt of an alert and what came of it. */
export async function recordAlertAttempt(
  db: Queryable,
  id: number,
  outcome: { status: 'sent' | 'failed' | 'logged'; error: string | null; at: Date },
): Promise<void> {
  await db.query(
    `update alerts set attempts = attempts + 1, status = $2::text, last_error = $3::text,
            sent_at = case when $2::text = 'sent' then $4::timestamptz else sent_at end
      where id = $1::bigint`,
    [id, outcome.status, outcome.error, outcome.at],
  );
}

/** Alerts newest first, optionally of one status or kind, one page plus one row. */
export async function listAlerts(
  db: Queryable,
  filter: { status?: string; kind?: string },
  page: Page,
): Promise<(Record<string, unknown> & { id: number })[]> {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query(
    `select id, kind, subject_id, account_id, payload, status, attempts, last_error, created_at, sent_at
       from alerts
      where ($1::text is null or status = $1::text) and ($2::text is null or kind = $2::text)
        and ($3::bigint is null or id < $3::bigint) and ($4::bigint is null or id > $4::bigint)
      order by id ${backwards ? 'asc' : 'desc'}
      limit $5::int`,
    [filter.status ?? null, filter.kind ?? null, page.afterId, page.beforeId, page.limit + 1],
  );
  return rows;
}

export async function countAlertsByStatus(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ status: string; count: number }>(
    'select status, count(*)::int as count from alerts group by status',
  );
  return new Map(rows.map((row) => [row.status, row.count]));
}

/**
 * Manual-capture authorizations not captured, canceled, failed or otherwise settled, authorized after
 * `since` (older ones are long expired and left alone).
 */
export async function listUncapturedAuthorizations(db: Queryable, since: Date): Promise<Authorization[]> {
  const { rows } = await db.query<Authorization>(
    `select id as "paymentId", account_id as "accountId", amount, currency, authorized_at as "authorizedAt"
       from payments
      where capture_strategy = 'manual' and authorized_at is not null and authorized_at > $1::timestamptz
        and captured_at is null and canceled_at is null and failed_at is null and succeeded_at is null
        and not status_terminal
      order by authorized_at, id`,
    [since],
  );
  return rows;
}
