import type { Queryable } from './pool.ts';

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
