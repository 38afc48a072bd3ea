import type { Queryable } from '../db/pool.ts';
import type { MovementKind } from '../domain/movementKinds.ts';

/** Movements up to a closed period's end, summed per month, account and currency by kind (zero kinds left out). */
export type BookedRow = {
  month: string;
  account_type: string;
  account_id: string;
  currency: string;
  totals: Partial<Record<MovementKind, number>>;
};

export type CutOff = {
  last_delivery_received_at: string | null;
  last_sweep_at: string | null;
  last_payout_sync_at: string | null;
  newest_statement_date: string | null;
};

export type PeriodVersionRow = {
  period: string;
  version: number;
  report: string;
  journal: string;
  content_sha256: string;
  booked: BookedRow[];
  cut_off: CutOff;
  closed_by: string;
  closed_at: Date;
};

export type PeriodStateRow = { period: string; version: number; closed_at: Date; closed_by: string };

export type PeriodHistoryRow = {
  action: 'close' | 'reopen';
  version: number;
  actor: string;
  note: string | null;
  created_at: Date;
};

/** The closed periods (their current version), oldest first. */
export async function listClosedPeriods(db: Queryable): Promise<PeriodStateRow[]> {
  const { rows } = await db.query<PeriodStateRow>(
    `select period, version, closed_at, closed_by from period_versions where reopened_at is null order by period`,
  );
  return rows;
}

/** The current version of a closed period, or null when it is open. */
export async function findClosedVersion(db: Queryable, period: string): Promise<PeriodVersionRow | null> {
  const { rows } = await db.query<PeriodVersionRow>(
    `select period, version, report, journal, content_sha256, booked, cut_off, closed_by, closed_at
       from period_versions where period = $1::text and reopened_at is null`,
    [period],
  );
  return rows[0] ?? null;
}

/** The latest closed period before `period` (the one whose `booked` the first open period adjusts), or null. */
export async function findLatestClosedBefore(
  db: Queryable,
  period: string,
): Promise<PeriodVersionRow | null> {
  const { rows } = await db.query<PeriodVersionRow>(
    `select period, version, report, journal, content_sha256, booked, cut_off, closed_by, closed_at
       from period_versions where period < $1::text and reopened_at is null
      order by period desc limit 1`,
    [period],
  );
  return rows[0] ?? null;
}

export async function listPeriodHistory(db: Queryable, period: string): Promise<PeriodHistoryRow[]> {
  const { rows } = await db.query<PeriodHistoryRow>(
    `select action, version, actor, note, created_at from period_history where period = $1::text order by id`,
    [period],
  );
  return rows;
}

/** Closes and reopens take turns: each re-reads the state it checks under this lock, in its transaction. */
export async function lockPeriodVersions(db: Queryable): Promise<void> {
  await db.query('lock table period_versions in share row exclusive mode');
}

export async function insertPeriodVersion(
  db: Queryable,
  row: Omit<PeriodVersionRow, 'version'>,
  note: string | null,
): Promise<number> {
  const { rows } = await db.query<{ version: number }>(
    `with next as (
       select coalesce(max(version), 0) + 1 as version from period_versions where period = $1::text
     ), inserted as (
       insert into period_versions (period, version, report, journal, content_sha256, booked, cut_off, closed_by, closed_at)
       select $1::text, version, $2::text, $3::text, $4::text, $5::jsonb, $6::jsonb, $7::text, $8::timestamptz from next
       returning period, version, closed_by, closed_at
     )
     insert into period_history (period, version, action, actor, note, created_at)
     select period, version, 'close', closed_by, $9::text, closed_at from inserted
     returning version`,
    [
      row.period,
      row.report,
      row.journal,
      row.content_sha256,
      JSON.stringify(row.booked),
      JSON.stringify(row.cut_off),
      row.closed_by,
      row.closed_at,
      note,
    ],
  );
  return (rows[0] as { version: number }).version;
}

export async function markPeriodReopened(
  db: Queryable,
  reopen: { period: string; actor: string; note: string; at: Date },
): Promise<void> {
  await db.query(
    `with reopened as (
       update period_versions set reopened_at = $4::timestamptz
        where period = $1::text and reopened_at is null
       returning period, version
     )
     insert into period_history (period, version, action, actor, note, created_at)
     select period, version, 'reopen', $2::text, $3::text, $4::timestamptz from reopened`,
    [reopen.period, reopen.actor, reopen.note, reopen.at],
  );
}

/**
 * What the data held at a close: the last delivery received, the last completed sweep and payout sync (the
 * latest finished, as GET /api/status reports them), and the newest date an imported statement covers.
 */
export async function readCutOff(db: Queryable): Promise<{
  last_delivery_received_at: Date | null;
  last_sweep_at: Date | null;
  last_payout_sync_at: Date | null;
  newest_statement_date: string | null;
}> {
  const { rows } = await db.query(
    `select (select max(received_at) from events) as last_delivery_received_at,
            (select max(finished_at) from sweep_runs where status = 'completed' and kind = 'sweep') as last_sweep_at,
            (select max(synced_at) from payout_sync_accounts) as last_payout_sync_at,
            (select max(covers_to)::text from bank_statements) as newest_statement_date`,
  );
  return rows[0];
}
