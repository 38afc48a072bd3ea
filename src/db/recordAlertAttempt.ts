import type { Queryable } from './pool.ts';

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
