import type { Queryable } from '../db/pool.ts';

export type SweptResource = 'payments' | 'forwarding_requests';

export type ApiSnapshot = {
  eventId: string;
  eventName: string;
  accountId: string;
  accountType: string;
  rawBody: Buffer;
  bodySha256: Buffer;
  receivedAt: Date;
};

/**
 * Stores API snapshots in the raw log (`source = 'api'`) beside webhook deliveries, skipping one already
 * stored (its id is the object's id and `updated_at`); stored as `received`, the worker projects them.
 * Written apart from the webhook hot path: the sweep never reports conflicts, a snapshot is what it is.
 */
export async function insertApiSnapshots(db: Queryable, snapshots: ApiSnapshot[]): Promise<void> {
  if (snapshots.length === 0) return;
  await db.query(
    `insert into events (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, status,
                         source, received_at)
     select s.event_id, s.event_name, s.account_id, s.account_type, '{}'::jsonb, decode(s.raw_body, 'base64'),
            decode(s.body_sha256, 'hex'), 'received', 'api', s.received_at
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
            with ordinality as s(event_id, event_name, account_id, account_type, raw_body, body_sha256,
                                 received_at, position)
      order by s.position
     on conflict do nothing`,
    [
      snapshots.map((snapshot) => snapshot.eventId),
      snapshots.map((snapshot) => snapshot.eventName),
      snapshots.map((snapshot) => snapshot.accountId),
      snapshots.map((snapshot) => snapshot.accountType),
      snapshots.map((snapshot) => snapshot.rawBody.toString('base64')),
      snapshots.map((snapshot) => snapshot.bodySha256.toString('hex')),
      snapshots.map((snapshot) => snapshot.receivedAt),
    ],
  );
}

export type ProjectedState = { updatedAt: Date; deliveredUpdatedAt: Date | null };

/** What Tally projected of these objects: the newest snapshot's time and the newest a webhook brought. */
export async function findProjectedStates(
  db: Queryable,
  resource: SweptResource,
  ids: string[],
): Promise<Map<string, ProjectedState>> {
  const table = resource === 'payments' ? 'payments' : 'forwarding_requests';
  const { rows } = await db.query<{ id: string } & ProjectedState>(
    `select id, updated_at as "updatedAt", delivered_updated_at as "deliveredUpdatedAt"
       from ${table} where id = any($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Where the last complete sweep of an account's resource reached back to (null: never swept). */
export async function findWatermark(db: Queryable, accountId: string, resource: SweptResource) {
  const { rows } = await db.query<{ swept_until: Date }>(
    `select swept_until from sweep_watermarks where account_id = $1::text and resource = $2::text`,
    [accountId, resource],
  );
  return rows[0]?.swept_until ?? null;
}

/** Moves the watermark forward only: two sweeps finishing out of order never move it back. */
export async function advanceWatermark(
  db: Queryable,
  accountId: string,
  resource: SweptResource,
  until: Date,
) {
  await db.query(
    `insert into sweep_watermarks (account_id, resource, swept_until) values ($1::text, $2::text, $3::timestamptz)
     on conflict (account_id, resource) do update
       set swept_until = greatest(sweep_watermarks.swept_until, excluded.swept_until)`,
    [accountId, resource, until],
  );
}

/** `test` or `live`, from the account's deliveries; null when none arrived yet. */
export async function findAccountType(db: Queryable, accountId: string): Promise<string | null> {
  const { rows } = await db.query<{ account_type: string }>(
    `select account_type from payments where account_id = $1::text
     union all select account_type from forwarding_requests where account_id = $1::text
     limit 1`,
    [accountId],
  );
  return rows[0]?.account_type ?? null;
}

/**
 * An account's payments whose fee breakdown never arrived (no snapshot had `fees`), created in the
 * window and fetched from the API never before: each is fetched once.
 */
export async function listPaymentsAwaitingFees(
  db: Queryable,
  accountId: string,
  createdFrom: Date,
  createdBefore: Date,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select p.id from payments p
      where p.account_id = $1::text and p.fees_updated_at = '-infinity'
        and p.created_at >= $2::timestamptz and p.created_at < $3::timestamptz
        and not exists (select 1 from fee_breakdown_fetches f where f.payment_id = p.id)
      order by p.created_at, p.id
      limit 1000`,
    [accountId, createdFrom, createdBefore],
  );
  return rows.map((row) => row.id);
}

export async function recordFeeBreakdownFetch(db: Queryable, paymentId: string, at: Date): Promise<void> {
  await db.query(
    `insert into fee_breakdown_fetches (payment_id, fetched_at) values ($1::text, $2::timestamptz)
     on conflict do nothing`,
    [paymentId, at],
  );
}

export type SweepCounts = { listed: number; new: number; newer: number; unchanged: number; missed: number };

export async function startSweepRun(db: Queryable, accountId: string, kind: 'sweep' | 'backfill', at: Date) {
  const { rows } = await db.query<{ id: number }>(
    `insert into sweep_runs (account_id, kind, started_at) values ($1::text, $2::text, $3::timestamptz) returning id`,
    [accountId, kind, at],
  );
  return rows[0]?.id as number;
}

export async function finishSweepRun(
  db: Queryable,
  id: number,
  outcome: { counts: SweepCounts; error: string | null; at: Date },
): Promise<void> {
  const { counts } = outcome;
  await db.query(
    `update sweep_runs set status = $2::text, listed = $3::int, new = $4::int, newer = $5::int,
            unchanged = $6::int, missed = $7::int, error = $8::text, finished_at = $9::timestamptz
      where id = $1::bigint`,
    [
      id,
      outcome.error === null ? 'completed' : 'failed',
      counts.listed,
      counts.new,
      counts.newer,
      counts.unchanged,
      counts.missed,
      outcome.error,
      outcome.at,
    ],
  );
}
