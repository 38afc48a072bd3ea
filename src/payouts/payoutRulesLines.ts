import type { FindingDraft } from '../findings/findings.ts';
import type {
  PaymentFeeToCheck,
  PaymentWithObjects,
  PayoutLineToCheck,
  RefundToCheck,
  ReturnedFeeToCheck,
} from './payoutFactsQueries.ts';

export type MatchedType = 'payment' | 'payment_fee' | 'refund' | 'returned_fee';
export type LineCheckStatus = 'ok' | 'mismatch' | 'payment_unknown' | 'not_checked';

/** What rule 2 found for one line (a `payout_line_checks` row). Amounts from the merchant balance's view. */
export type LineCheck = {
  lineId: string;
  payoutId: string;
  matchedType: MatchedType | null;
  matchedId: string | null;
  status: LineCheckStatus;
  expected: number | null;
  actual: number | null;
};

/** One figure of a line compared with Tally's: the line's amount, or the `fee` deducted on it. */
type Part = { part: 'amount' | 'fee'; expected: number; actual: number };

type Judgement =
  | { status: 'not_checked'; reason: string }
  | { status: 'payment_unknown' }
  | { status: 'compared'; matchedType: MatchedType; matchedId: string; parts: Part[]; reason?: string };

const notChecked = (reason: string): Judgement => ({ status: 'not_checked', reason });

const compared = (
  matchedType: MatchedType,
  matchedId: string,
  expected: number,
  line: PayoutLineToCheck,
  reason?: string,
): Judgement => ({
  status: 'compared',
  matchedType,
  matchedId,
  parts: [{ part: 'amount', expected, actual: line.amount }],
  ...(reason === undefined ? {} : { reason }),
});

// `processing_fee_return` returns a `processing_fee`.
const feeTypeOf = (line: PayoutLineToCheck) => line.txnType.replace(/_return$/, '');

function judgePaymentLine(line: PayoutLineToCheck, payment: PaymentWithObjects): Judgement {
  const parts: Part[] = [{ part: 'amount', expected: payment.amount, actual: line.amount }];
  // Fees deducted on the payment's own line: together they are the payment's fees.
  if (line.fee !== 0)
    parts.push({
      part: 'fee',
      expected: -payment.fees.reduce((sum, fee) => sum + fee.amount, 0),
      actual: -line.fee,
    });
  return { status: 'compared', matchedType: 'payment', matchedId: payment.id, parts };
}

function judgeFeeLine(line: PayoutLineToCheck, payment: PaymentWithObjects): Judgement {
  const byId = payment.fees.find((fee) => fee.id === line.sourceId);
  const ofType = payment.fees.filter((fee) => fee.type === feeTypeOf(line));
  const [fee] = byId ? [byId] : ofType;
  if (fee === undefined)
    return compared('payment', payment.id, 0, line, `the payment has no ${feeTypeOf(line)}`);
  if (!byId && ofType.length > 1)
    return notChecked(`the payment has several fees of type ${feeTypeOf(line)}`);
  return compared('payment_fee', fee.id, -fee.amount, line);
}

function judgeRefundLine(line: PayoutLineToCheck, payment: PaymentWithObjects): Judgement {
  const byId = payment.refunds.find((refund) => refund.id === line.sourceId);
  const refund = byId ?? (payment.refunds.length === 1 ? payment.refunds[0] : undefined);
  if (refund === undefined)
    return payment.refunds.length === 0
      ? compared('payment', payment.id, 0, line, 'Tally knows no refund of the payment')
      : notChecked('the line names none of the payment refunds');
  // A refund that failed or was canceled moved no money.
  if (refund.status === 'failed' || refund.status === 'canceled')
    return compared('refund', refund.id, 0, line, `the refund is ${refund.status}`);
  return compared('refund', refund.id, -refund.amount, line);
}

const returnedOfType = (refund: RefundToCheck, type: string) =>
  refund.returnedFees.filter((returned) => returned.type === type);

function judgeReturnedFees(
  line: PayoutLineToCheck,
  returned: ReturnedFeeToCheck[],
  refund: RefundToCheck,
): Judgement {
  const [first] = returned;
  if (first === undefined)
    return compared('refund', refund.id, 0, line, `the refund returned no ${feeTypeOf(line)}`);
  const total = returned.reduce((sum, fee) => sum + (fee.returnedAmount ?? 0), 0);
  return returned.length === 1
    ? compared('returned_fee', first.id, total, line)
    : compared('refund', refund.id, total, line);
}

// A void or an ACH return hands the fee back without a refund object: what is no longer remaining of it.
const handedBack = (fee: PaymentFeeToCheck) => fee.amount - (fee.remainingAmount ?? 0);

function judgeFeeReturnLine(line: PayoutLineToCheck, payment: PaymentWithObjects): Judgement {
  const type = feeTypeOf(line);
  for (const refund of payment.refunds) {
    const returned = refund.returnedFees.find((fee) => fee.id === line.sourceId);
    if (returned) return compared('returned_fee', returned.id, returned.returnedAmount ?? 0, line);
  }
  const refund = payment.refunds.find((candidate) => candidate.id === line.sourceId);
  if (refund) return judgeReturnedFees(line, returnedOfType(refund, type), refund);
  if (payment.returned) {
    const fees = payment.fees.filter((fee) => fee.type === type);
    const [fee] = fees;
    if (fee === undefined) return compared('payment', payment.id, 0, line, `the payment has no ${type}`);
    if (fees.length > 1) return notChecked(`the payment has several fees of type ${type}`);
    return compared('payment_fee', fee.id, handedBack(fee), line);
  }
  const candidates = payment.refunds.flatMap((candidate) => returnedOfType(candidate, type));
  const [only] = candidates;
  if (only === undefined)
    return compared('payment', payment.id, 0, line, `no refund of the payment returned its ${type}`);
  if (candidates.length > 1) return notChecked(`several refunds of the payment returned its ${type}`);
  return compared('returned_fee', only.id, only.returnedAmount ?? 0, line);
}

const JUDGE_BY_KIND = {
  payment: judgePaymentLine,
  fee: judgeFeeLine,
  refund: judgeRefundLine,
  fee_return: judgeFeeReturnLine,
};

function judgeLine(line: PayoutLineToCheck, payments: Map<string, PaymentWithObjects>): Judgement {
  if (line.kind === 'payout' || line.kind === 'other') return notChecked(`a ${line.kind} line`);
  const payment = line.paymentId === null ? undefined : payments.get(line.paymentId);
  if (payment === undefined) return { status: 'payment_unknown' };
  return JUDGE_BY_KIND[line.kind](line, payment);
}

const sum = (parts: Part[], key: 'expected' | 'actual') =>
  parts.reduce((total, part) => total + part[key], 0);

/**
 * Rule 2, each line agrees with what Tally knows: a payment line with the payment's amount (and its `fee`, if
 * any, with the payment's fees), a fee line with the payment's fee of its type, a refund line with the refund,
 * a fee-return line with the fee its refund returned, or for a void or ACH return the part of the fee no
 * longer remaining. A mismatch is a `payout_line_mismatch` (error, at stake the differences); a line whose
 * payment Tally does not have (the sync fetched it once already) a `payout_payment_unknown` (error, at stake
 * the line's amount). Payout and other lines are not checked.
 */
export function checkPayoutLines(
  lines: PayoutLineToCheck[],
  payments: Map<string, PaymentWithObjects>,
): { drafts: FindingDraft[]; lineChecks: LineCheck[] } {
  const drafts: FindingDraft[] = [];
  const lineChecks: LineCheck[] = [];
  for (const line of lines) {
    const judgement = judgeLine(line, payments);
    const base = { lineId: line.id, payoutId: line.payoutId };
    const subject = { subjectType: 'balance_transaction', subjectId: line.id };
    const about = {
      payout_id: line.payoutId,
      kind: line.kind,
      txn_type: line.txnType,
      payment_id: line.paymentId,
    };
    if (judgement.status === 'not_checked') {
      lineChecks.push({
        ...base,
        matchedType: null,
        matchedId: null,
        status: 'not_checked',
        expected: null,
        actual: line.net,
      });
      continue;
    }
    if (judgement.status === 'payment_unknown') {
      lineChecks.push({
        ...base,
        matchedType: null,
        matchedId: null,
        status: 'payment_unknown',
        expected: null,
        actual: line.net,
      });
      drafts.push({
        code: 'payout_payment_unknown',
        severity: 'error',
        ...subject,
        expected: null,
        actual: line.amount,
        details: { ...about, source_id: line.sourceId, source_type: line.sourceType },
        atStake: Math.abs(line.amount),
      });
      continue;
    }
    const { matchedType, matchedId, parts } = judgement;
    const differing = parts.filter((part) => part.expected !== part.actual);
    const expected = sum(parts, 'expected');
    const actual = sum(parts, 'actual');
    lineChecks.push({
      ...base,
      matchedType,
      matchedId,
      status: differing.length > 0 ? 'mismatch' : 'ok',
      expected,
      actual,
    });
    if (differing.length === 0) continue;
    drafts.push({
      code: 'payout_line_mismatch',
      severity: 'error',
      ...subject,
      expected,
      actual,
      details: {
        ...about,
        object_type: matchedType,
        object_id: matchedId,
        parts,
        ...(judgement.reason === undefined ? {} : { reason: judgement.reason }),
      },
      atStake: differing.reduce((total, part) => total + Math.abs(part.expected - part.actual), 0),
    });
  }
  return { drafts, lineChecks };
}
