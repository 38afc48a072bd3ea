import type { Queryable } from '../db/pool.ts';

export type JournalExportRow = {
  period: string;
  version: number;
  format: string;
  currency: string | null;
  part: number | null;
  changes_since: number | null;
  actor: string;
  created_at: Date;
};

/** The journal stored with one version of a period (reopened or current), or null when it has no such version. */
export async function findVersionJournal(
  db: Queryable,
  period: string,
  version: number,
): Promise<string | null> {
  const { rows } = await db.query<{ journal: string }>(
    `select journal from period_versions where period = $1::text and version = $2::integer`,
    [period, version],
  );
  return rows[0]?.journal ?? null;
}

/** The latest version a period was ever closed at (0 when never). */
export async function findLatestVersion(db: Queryable, period: string): Promise<number> {
  const { rows } = await db.query<{ version: number }>(
    `select coalesce(max(version), 0)::integer as version from period_versions where period = $1::text`,
    [period],
  );
  return rows[0]?.version ?? 0;
}

export async function insertJournalExport(db: Queryable, row: JournalExportRow): Promise<void> {
  await db.query(
    `insert into period_journal_exports (period, version, format, currency, part, changes_since, actor, created_at)
     values ($1::text, $2::integer, $3::text, $4::text, $5::integer, $6::integer, $7::text, $8::timestamptz)`,
    [
      row.period,
      row.version,
      row.format,
      row.currency,
      row.part,
      row.changes_since,
      row.actor,
      row.created_at,
    ],
  );
}

/** A period's journal downloads, oldest first. */
export async function listJournalExports(db: Queryable, period: string): Promise<JournalExportRow[]> {
  const { rows } = await db.query<JournalExportRow>(
    `select period, version, format, currency, part, changes_since, actor, created_at
       from period_journal_exports where period = $1::text order by id`,
    [period],
  );
  return rows;
}
