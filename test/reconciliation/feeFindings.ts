import { expect } from 'vitest';
import type { FeeConfiguration } from '../../src/domain/feeConfiguration.ts';
import type { FindingDraft } from '../../src/findings/findings.ts';
import { countFeeChecks, type FeeCheckCounts } from '../../src/reconciliation/feeRules.ts';
import type { PaymentFeeToReconcile, PaymentToReconcile } from '../../src/reconciliation/queries.ts';
import { CREATED_AT, described, facts, feeRules, sorted } from './fixtures.ts';

// The findings the fee rules open for payment py_1, every field a user reads spelled out.

export function totalMismatch(
  feeAmount: number,
  sumOfFees: number,
  fees: PaymentFeeToReconcile[],
): FindingDraft {
  return {
    code: 'fee_total_mismatch',
    severity: 'error',
    subjectType: 'payment',
    subjectId: 'py_1',
    expected: feeAmount,
    actual: sumOfFees,
    atStake: Math.abs(feeAmount - sumOfFees),
    details: {
      fee_amount: feeAmount,
      sum_of_fees: sumOfFees,
      fees: fees.map((fee) => ({ id: fee.id, amount: fee.amount })),
    },
  };
}

export function amountMismatch(
  feeId: string,
  configuration: FeeConfiguration,
  expected: number,
  actual: number,
  formula: string,
  paymentAmount = 12_345,
): FindingDraft {
  return {
    code: 'fee_amount_mismatch',
    severity: 'error',
    subjectType: 'payment_fee',
    subjectId: feeId,
    expected,
    actual,
    atStake: Math.abs(expected - actual),
    details: {
      payment_id: 'py_1',
      payment_amount: paymentAmount,
      configuration: described(configuration),
      formula,
    },
  };
}

export function unknownConfiguration(
  feeId: string,
  sourceId: string,
  sourceFeeType: string | null,
  feeAmount: number,
): FindingDraft {
  return {
    code: 'fee_configuration_unknown',
    severity: 'warning',
    subjectType: 'payment_fee',
    subjectId: feeId,
    expected: null,
    actual: sourceId,
    atStake: feeAmount,
    details: { payment_id: 'py_1', source_configuration_id: sourceId, source_fee_type: sourceFeeType },
  };
}

/** `atStake`: charged vs what the configuration the selection rules pick at `createdAt` gives. */
export function notEffective(
  feeId: string,
  configuration: FeeConfiguration,
  createdAt: Date,
  atStake: number | null,
): FindingDraft {
  return {
    code: 'fee_configuration_not_effective',
    severity: 'error',
    subjectType: 'payment_fee',
    subjectId: feeId,
    expected: { effective_start: configuration.effectiveStart, effective_end: configuration.effectiveEnd },
    actual: createdAt,
    atStake,
    details: { payment_id: 'py_1', payment_created_at: createdAt, configuration: described(configuration) },
  };
}

type Kind = Partial<Pick<PaymentToReconcile, 'methodKind' | 'cardBrand' | 'expedited'>>;

/**
 * `kind` defaults to the default payment's: a visa card online. `atStake`: charged vs what the configuration
 * of `expectedType` gives.
 */
export function notApplicable(
  feeId: string,
  feeType: 'processing_fee' | 'platform_fee',
  expectedType: string,
  configuration: FeeConfiguration,
  atStake: number | null,
  kind: Kind = {},
): FindingDraft {
  return {
    code: 'fee_configuration_not_applicable',
    severity: 'error',
    subjectType: 'payment_fee',
    subjectId: feeId,
    expected: expectedType,
    actual: configuration.feeType,
    atStake,
    details: {
      payment_id: 'py_1',
      fee_type: feeType,
      method_kind: kind.methodKind ?? 'card',
      card_brand: kind.cardBrand === undefined ? 'visa' : kind.cardBrand,
      expedited: kind.expedited ?? false,
      configuration: described(configuration),
    },
  };
}

export function platformMissing(
  expected: number,
  configuration: FeeConfiguration,
  createdAt = CREATED_AT,
): FindingDraft {
  return {
    code: 'platform_fee_missing',
    severity: 'warning',
    subjectType: 'payment',
    subjectId: 'py_1',
    expected,
    actual: 0,
    atStake: expected,
    details: { configuration: described(configuration), payment_created_at: createdAt },
  };
}

export type FeeCase = {
  name: string;
  payment?: Partial<PaymentToReconcile>;
  fees: PaymentFeeToReconcile[];
  configurations: FeeConfiguration[] | null;
  findings: FindingDraft[];
  counts?: FeeCheckCounts;
};

/** Runs every fee rule on the case's payment: exactly `findings` open, and the checks not made are counted. */
export function runFeeCase(row: FeeCase): void {
  const paymentFacts = facts({
    payment: row.payment ?? {},
    fees: row.fees,
    configurations: row.configurations,
  });
  expect(feeRules(paymentFacts)).toEqual(sorted(row.findings));
  expect(countFeeChecks(paymentFacts)).toEqual(row.counts ?? { overrides: 0, unverified: 0 });
}
