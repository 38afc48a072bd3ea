import type { Queryable } from './pool.ts';

/** Subjects of the open findings of one code, e.g. the broken `account:fee_type` chains. */
export async function listOpenFindingSubjects(db: Queryable, code: string): Promise<Set<string>> {
  const { rows } = await db.query<{ subject_id: string }>(
    `select subject_id from findings where code = $1::text and status = 'open'`,
    [code],
  );
  return new Set(rows.map((row) => row.subject_id));
}
