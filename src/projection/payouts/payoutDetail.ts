import type { Queryable } from '../../db/pool.ts';
import {
  findBankLineOfPayout,
  findPayout,
  listFindingsOfPayout,
  listPayoutLines,
  type PayoutLineView,
} from './payoutReadQueries.ts';

// A payout's own findings and its lines': a payout of thousands of lines shows the newest this many.
const FINDINGS_LIMIT = 500;

/** A line as the API and console show it: the balance transaction, its check, and the object it matched. */
export function presentPayoutLine(row: PayoutLineView) {
  const {
    check_status: status,
    check_matched_type: matchedType,
    check_matched_id: matchedId,
    check_expected: expected,
    check_actual: actual,
    checked_at: checkedAt,
    matched_payment_id: paymentId,
    matched_refund_id: refundId,
    matched_fee_type: feeType,
    matched_amount: amount,
    matched_currency: currency,
    matched_status: matchedStatus,
    matched_found: found,
    ...line
  } = row;
  return {
    ...line,
    check:
      status === null
        ? null
        : {
            status,
            matched_type: matchedType,
            matched_id: matchedId,
            expected,
            actual,
            checked_at: checkedAt,
          },
    // The Tally object the check compared the line with, as stored now; null when none was matched.
    matched:
      found && matchedType !== null && matchedId !== null
        ? {
            type: matchedType,
            id: matchedId,
            payment_id: paymentId,
            refund_id: refundId,
            fee_type: feeType,
            amount,
            currency,
            status: matchedStatus,
          }
        : null,
  };
}

export type PayoutDetail = NonNullable<Awaited<ReturnType<typeof readPayoutDetail>>>;

/** A payout with its last judgement, every line with its check and match, its bank credit and its findings. */
export async function readPayoutDetail(db: Queryable, id: string) {
  const row = await findPayout(db, id);
  if (!row) return null;
  // One after another: `db` can be a transaction's client, which runs one query at a time.
  const lines = await listPayoutLines(db, id);
  const bankLine = await findBankLineOfPayout(db, id);
  const findings = await listFindingsOfPayout(db, id, FINDINGS_LIMIT);
  const {
    judged_at: judgedAt,
    lines_checked: linesChecked,
    lines_mismatched: linesMismatched,
    ...payout
  } = row;
  return {
    ...payout,
    reconciliation: payout.judged
      ? { judged_at: judgedAt, lines_checked: linesChecked, lines_mismatched: linesMismatched }
      : null,
    lines: lines.map(presentPayoutLine),
    bank_line: bankLine,
    findings: findings.map((finding) => ({ ...finding, id: `fnd_${finding.id}` })),
  };
}
