import type { Queryable } from '../db/pool.ts';

export type OpenedFinding = {
  id: number;
  code: string;
  severity: string;
  subject_type: string;
  subject_id: string;
  account_id: string | null;
  currency: string | null;
  expected: unknown;
  actual: unknown;
  details: Record<string, unknown>;
  first_seen_at: Date;
  /** Cents, as the finding's rule measured them; null when it measures no money. */
  at_stake: number | null;
};

/**
 * Takes up to `limit` findings opened since the last call (the `findings_opened` trigger records each one
 * in the transaction that opens it) and returns those of `codes` that are not resolved yet. The rows taken
 * are deleted in the caller's transaction; rows another scan holds are skipped.
 */
export async function takeOpenedFindings(db: Queryable, codes: string[], limit: number) {
  const { rows } = await db.query<OpenedFinding & { taken: number }>(
    `with taken as (
       delete from opened_findings
        where finding_id in (select finding_id from opened_findings order by finding_id limit $2::int
                             for update skip locked)
       returning finding_id, code),
     counted as (select count(*)::int as taken from taken)
     select counted.taken, f.id, f.code, f.severity, f.subject_type, f.subject_id, f.account_id, f.currency,
            f.expected, f.actual, f.details, f.first_seen_at, f.at_stake
       from counted
       left join (taken t join findings f on f.id = t.finding_id
                  and t.code = any($1::text[]) and f.status <> 'resolved') on true
      order by f.id`,
    [codes, limit],
  );
  return {
    taken: rows[0]?.taken ?? 0,
    findings: rows.filter((row) => row.id !== null) as OpenedFinding[],
  };
}

export type OpenDispute = {
  id: string;
  payment_id: string | null;
  account_id: string;
  amount: number | null;
  currency: string | null;
  reason: string | null;
  due_date: string;
  status: string;
  /** Its open `dispute_open` finding: once that resolves (won), a waiting digest drops the alert. */
  finding_id: number | null;
};

/** Disputes still open (`needs_response`, `under_review`) due between `today` and `today + days`. */
export async function listDisputesDueWithin(db: Queryable, today: string, days: number) {
  const { rows } = await db.query<OpenDispute>(
    `select d.id, d.payment_id, d.account_id, d.amount, d.currency, d.reason,
            to_char(d.due_date, 'YYYY-MM-DD') as due_date, d.status,
            (select f.id from findings f
              where f.code = 'dispute_open' and f.subject_id = d.id and f.status <> 'resolved'
              order by f.id desc limit 1) as finding_id
       from disputes d
      where d.status in ('needs_response', 'under_review')
        and d.due_date between $1::date and $1::date + $2::int
      order by d.due_date, d.id`,
    [today, days],
  );
  return rows;
}

export type WaitingAlert = {
  id: number;
  kind: string;
  subject_id: string;
  account_id: string | null;
  payload: Record<string, unknown>;
  digest_due_at: Date;
  /** Its finding resolved while the alert waited: the digest leaves it out. */
  resolved: boolean;
};

/** Locks the alerts whose digest is due (skipping those another scan holds), oldest first. */
export async function lockDueDigestAlerts(db: Queryable, now: Date): Promise<WaitingAlert[]> {
  const { rows } = await db.query<WaitingAlert>(
    `select a.id, a.kind, a.subject_id, a.account_id, a.payload, a.digest_due_at,
            coalesce(f.status = 'resolved', false) as resolved
       from alerts a left join findings f on f.id = a.finding_id
      where a.digest_id is null and a.status = 'pending' and a.digest_due_at <= $1::timestamptz
      order by a.id
      for update of a skip locked`,
    [now],
  );
  return rows;
}

/** Marks the alerts a digest took (`digested`) or left out (`dropped`). */
export async function markDigested(
  db: Queryable,
  digest: { id: number | null; included: number[]; dropped: number[] },
): Promise<void> {
  await db.query(
    `update alerts set digest_id = $1::bigint,
            status = case when id = any($2::bigint[]) then 'digested' else 'dropped' end
      where id = any($2::bigint[]) or id = any($3::bigint[])`,
    [digest.id, digest.included, digest.dropped],
  );
}
