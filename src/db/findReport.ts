import type { Queryable } from './pool.ts';

export type ReportRow = {
  id: number;
  kind: string;
  period: string | null;
  body: Record<string, unknown>;
  created_at: Date;
};

/** One report by id, or (with `latestOf`) the newest of a kind. */
export async function findReport(
  db: Queryable,
  by: { id: number } | { latestOf: string },
): Promise<ReportRow | null> {
  const { rows } = await db.query<ReportRow>(
    `select id, kind, to_char(period, 'YYYY-MM-DD') as period, body, created_at from reports
      where ${'id' in by ? 'id = $1::bigint' : 'kind = $1::text'} order by id desc limit 1`,
    ['id' in by ? by.id : by.latestOf],
  );
  return rows[0] ?? null;
}
