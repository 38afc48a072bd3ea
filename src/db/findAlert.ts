import type { Queryable } from './pool.ts';

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
