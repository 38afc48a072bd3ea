import type { Page, Queryable } from '../db/pool.ts';
import type { Authorization } from './captureExpiry.ts';

export type NewAlert = {
  dedupeKey: string;
  kind: string;
  subjectId: string;
  accountId: string | null;
  payload: unknown;
  /** The finding it is about; unset: the unresolved finding whose code is the kind, on the same subject. */
  findingId?: number | null;
};

/**
 * Inserts the alerts not raised before (by dedupe key) and returns the ids of the new ones only. With
 * `digestDueAt` they wait for the digest due then instead of going out one by one.
 */
export async function insertAlerts(
  db: Queryable,
  alerts: NewAlert[],
  now: Date,
  digestDueAt: Date | null = null,
): Promise<number[]> {
  if (alerts.length === 0) return [];
  const { rows } = await db.query<{ id: number }>(
    `insert into alerts (dedupe_key, kind, subject_id, account_id, payload, created_at, finding_id, digest_due_at)
     select a."dedupeKey", a.kind, a."subjectId", a."accountId", a.payload, $2::timestamptz,
            coalesce(a."findingId", (select f.id from findings f
                                      where f.code = a.kind and f.subject_id = a."subjectId" and f.status <> 'resolved'
                                      order by f.id desc limit 1)),
            $3::timestamptz
       from jsonb_to_recordset($1::jsonb)
            as a("dedupeKey" text, kind text, "subjectId" text, "accountId" text, payload jsonb, "findingId" bigint)
     on conflict (dedupe_key) do nothing
     returning id`,
    [JSON.stringify(alerts), now, digestDueAt],
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
  finding_id: number | null;
  digest_due_at: Date | null;
  digest_id: number | null;
  /** Per destination (`slack`, `signed`). */
  deliveries: Record<string, AlertDelivery>;
};

export type AlertDelivery = {
  status: 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  sent_at: string | null;
};

export async function findAlert(db: Queryable, id: number): Promise<AlertRow | null> {
  const { rows } = await db.query<AlertRow>('select * from alerts where id = $1::bigint', [id]);
  return rows[0] ?? null;
}

/**
 * Records one round of delivery of an alert: each destination tried, the alert's overall status (sent once
 * every destination has it), its attempts over all destinations and the errors of those that failed.
 */
export async function recordAlertDeliveries(
  db: Queryable,
  id: number,
  outcome: { status: 'sent' | 'failed'; tried: number; deliveries: Record<string, AlertDelivery>; at: Date },
): Promise<void> {
  const errors = Object.entries(outcome.deliveries)
    .filter(([, delivery]) => delivery.status === 'failed')
    .map(([destination, delivery]) => `${destination}: ${delivery.last_error}`);
  await db.query(
    `update alerts set attempts = attempts + $2::int, status = $3::text, deliveries = $4::jsonb,
            last_error = $5::text, sent_at = case when $3::text = 'sent' then $6::timestamptz else sent_at end
      where id = $1::bigint`,
    [
      id,
      outcome.tried,
      outcome.status,
      JSON.stringify(outcome.deliveries),
      errors.join('; ') || null,
      outcome.at,
    ],
  );
}

/** An alert with no destination configured: logged (by the caller) and listed only. */
export async function recordAlertLogged(db: Queryable, id: number): Promise<void> {
  await db.query(
    `update alerts set attempts = attempts + 1, status = 'logged', last_error = null where id = $1::bigint`,
    [id],
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
    `select id, kind, subject_id, account_id, payload, status, attempts, last_error, created_at, sent_at,
            deliveries, finding_id, digest_id
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
