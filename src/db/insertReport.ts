import type { Queryable } from './pool.ts';

export async function insertReport(
  db: Queryable,
  report: { kind: string; period: string | null; body: unknown; createdAt: Date },
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `insert into reports (kind, period, body, created_at) values ($1::text, $2::date, $3::jsonb, $4::timestamptz)
     returning id`,
    [report.kind, report.period, JSON.stringify(report.body), report.createdAt],
  );
  return rows[0]?.id as number;
}
