import type { Queryable } from '../db/pool.ts';
import type { LineCheck } from './payoutRulesLines.ts';

/** Replaces the line checks of these payouts with the new ones, in two statements. */
export async function replaceLineChecks(
  db: Queryable,
  payoutIds: string[],
  checks: LineCheck[],
  checkedAt: Date,
): Promise<void> {
  await db.query('delete from payout_line_checks where payout_id = any($1::text[])', [payoutIds]);
  if (checks.length === 0) return;
  // A line that moved from a payout not judged now keeps one row: the newest judgement's.
  await db.query(
    `insert into payout_line_checks (line_id, payout_id, matched_type, matched_id, status, expected, actual, checked_at)
     select c."lineId", c."payoutId", c."matchedType", c."matchedId", c.status, c.expected, c.actual, $2::timestamptz
       from jsonb_to_recordset($1::jsonb)
            as c("lineId" text, "payoutId" text, "matchedType" text, "matchedId" text, status text,
                 expected bigint, actual bigint)
     on conflict (line_id) do update set
       payout_id = excluded.payout_id, matched_type = excluded.matched_type, matched_id = excluded.matched_id,
       status = excluded.status, expected = excluded.expected, actual = excluded.actual,
       checked_at = excluded.checked_at`,
    [JSON.stringify(checks), checkedAt],
  );
}

export type PayoutReconciliation = {
  payoutId: string;
  accountId: string;
  judgedAt: Date;
  linesChecked: number;
  linesMismatched: number;
  /** Tally's value of the lines other than the payout line (null when there are none): the close's `unexplained` is the payout's amount less it. */
  linesValue: number | null;
};

/** Records the judgement of each payout, replacing the previous one. */
export async function upsertPayoutReconciliations(
  db: Queryable,
  reconciliations: PayoutReconciliation[],
): Promise<void> {
  if (reconciliations.length === 0) return;
  await db.query(
    `insert into payout_reconciliations (payout_id, account_id, judged_at, lines_checked, lines_mismatched,
                                         lines_value, lines_value_judged_at)
     select r."payoutId", r."accountId", r."judgedAt", r."linesChecked", r."linesMismatched", r."linesValue",
            r."judgedAt"
       from jsonb_to_recordset($1::jsonb)
            as r("payoutId" text, "accountId" text, "judgedAt" timestamptz, "linesChecked" int, "linesMismatched" int,
                 "linesValue" bigint)
     on conflict (payout_id) do update set
       account_id = excluded.account_id, judged_at = excluded.judged_at, lines_checked = excluded.lines_checked,
       lines_mismatched = excluded.lines_mismatched, lines_value = excluded.lines_value,
       lines_value_judged_at = excluded.lines_value_judged_at`,
    [JSON.stringify(reconciliations)],
  );
}

/**
 * Makes these payouts unjudged: their lines are being loaded again, so no earlier judgement (or line check)
 * may stand for the payout as it is now. Their findings stay until the next complete judgement.
 */
export async function deletePayoutJudgements(db: Queryable, payoutIds: string[]): Promise<void> {
  if (payoutIds.length === 0) return;
  await db.query('delete from payout_line_checks where payout_id = any($1::text[])', [payoutIds]);
  await db.query('delete from payout_reconciliations where payout_id = any($1::text[])', [payoutIds]);
}
