import { calculateFee } from '../domain/feeFormula.ts';
import {
  expectedProcessingType,
  isEffectiveAt,
  type PaymentKind,
  platformFeeExpected,
} from '../domain/feeSelection.ts';
import type { FindingDraft } from '../findings/findings.ts';

export type FeeConfiguration = {
  id: string;
  feeType: string;
  variableRate: string;
  transactionFeeCents: number;
  feeCapCents: number | null;
  effectiveStart: Date;
  effectiveEnd: Date | null;
};

export type PaymentToReconcile = PaymentKind & {
  id: string;
  amount: number;
  status: string | null;
  feeAmount: number | null;
  applicationFeeAmount: number | null;
  createdAt: Date | null;
};

export type FeeToReconcile = {
  id: string;
  type: string;
  amount: number;
  remainingAmount: number | null;
  sourceConfigurationId: string | null;
  sourceFeeType: string | null;
  snapshotUpdatedAt: Date;
};

export type FeeCheckCounts = { overrides: number; unverified: number };

/**
 * Checks a payment's fee breakdown against the fee configurations the provider published for its sub
 * account. `configurations` is null when they are unknown (sync off or not yet run), and a payment mode
 * with no fee configuration type of its own has none to check against: those checks are then counted as
 * unverified, not reported. Explicit fees and the legacy `application_fee_amount` are overrides, counted
 * and not checked. A failed or voided payment that was charged no fees is not missing any.
 */
export function reconcileFees(
  payment: PaymentToReconcile,
  fees: FeeToReconcile[],
  configurations: FeeConfiguration[] | null,
): { findings: FindingDraft[]; counts: FeeCheckCounts } {
  const findings: FindingDraft[] = [];
  const counts: FeeCheckCounts = { overrides: 0, unverified: 0 };
  if (payment.applicationFeeAmount) counts.overrides += 1;

  const total = fees.reduce((sum, fee) => sum + fee.amount, 0);
  // An empty breakdown with a non-zero (or no) total means the provider has not reported it yet.
  const breakdownReported = fees.length > 0 || payment.feeAmount === 0;
  if (payment.feeAmount !== null && breakdownReported && total !== payment.feeAmount) {
    findings.push({
      code: 'fee_total_mismatch',
      severity: 'error',
      subjectType: 'payment',
      subjectId: payment.id,
      expected: payment.feeAmount,
      actual: total,
      details: {
        fee_amount: payment.feeAmount,
        sum_of_fees: total,
        fees: fees.map((fee) => ({ id: fee.id, amount: fee.amount })),
      },
    });
  }

  for (const fee of fees) {
    if (fee.sourceConfigurationId === null) {
      counts.overrides += 1;
      continue;
    }
    if (configurations === null || payment.createdAt === null || payment.methodKind === 'other') {
      counts.unverified += 1;
      continue;
    }
    findings.push(...checkFeeAgainstConfiguration(payment, fee, configurations, payment.createdAt));
  }

  const neverCharged = fees.length === 0 && (payment.status === 'failed' || payment.status === 'canceled');
  if (payment.methodKind === 'other' && fees.length === 0 && !neverCharged) counts.unverified += 1;
  const createdAt = payment.createdAt;
  const platformCheckable = configurations !== null && createdAt !== null && payment.methodKind !== 'other';
  if (platformCheckable && breakdownReported && !neverCharged) {
    const platformConfig = configurations.find(
      (c) => c.feeType === 'platform' && isEffectiveAt(c, createdAt),
    );
    if (platformFeeExpected(configurations, createdAt) && !fees.some((fee) => fee.type === 'platform_fee')) {
      findings.push({
        code: 'platform_fee_missing',
        severity: 'warning',
        subjectType: 'payment',
        subjectId: payment.id,
        expected: platformConfig ? calculateFee(payment.amount, platformConfig) : null,
        actual: 0,
        details: {
          configuration: describeConfiguration(platformConfig),
          payment_created_at: createdAt,
        },
      });
    }
  }
  return { findings, counts };
}

function checkFeeAgainstConfiguration(
  payment: PaymentToReconcile,
  fee: FeeToReconcile,
  configurations: FeeConfiguration[],
  createdAt: Date,
): FindingDraft[] {
  const subject = { subjectType: 'payment_fee', subjectId: fee.id };
  const configuration = configurations.find((c) => c.id === fee.sourceConfigurationId);
  if (!configuration) {
    return [
      {
        code: 'fee_configuration_unknown',
        severity: 'warning',
        ...subject,
        expected: null,
        actual: fee.sourceConfigurationId,
        details: {
          payment_id: payment.id,
          source_configuration_id: fee.sourceConfigurationId,
          source_fee_type: fee.sourceFeeType,
        },
      },
    ];
  }
  const findings: FindingDraft[] = [];
  const described = describeConfiguration(configuration);
  if (!isEffectiveAt(configuration, createdAt)) {
    findings.push({
      code: 'fee_configuration_not_effective',
      severity: 'error',
      ...subject,
      expected: { effective_start: configuration.effectiveStart, effective_end: configuration.effectiveEnd },
      actual: createdAt,
      details: { payment_id: payment.id, payment_created_at: createdAt, configuration: described },
    });
  }
  const expectedType =
    fee.type === 'platform_fee' ? 'platform' : expectedProcessingType(payment, configurations, createdAt);
  if (expectedType !== null && configuration.feeType !== expectedType) {
    findings.push({
      code: 'fee_configuration_not_applicable',
      severity: 'error',
      ...subject,
      expected: expectedType,
      actual: configuration.feeType,
      details: {
        payment_id: payment.id,
        fee_type: fee.type,
        method_kind: payment.methodKind,
        card_brand: payment.cardBrand,
        expedited: payment.expedited,
        configuration: described,
      },
    });
  }
  const expectedAmount = calculateFee(payment.amount, configuration);
  if (expectedAmount !== fee.amount) {
    findings.push({
      code: 'fee_amount_mismatch',
      severity: 'error',
      ...subject,
      expected: expectedAmount,
      actual: fee.amount,
      details: {
        payment_id: payment.id,
        payment_amount: payment.amount,
        configuration: described,
        formula: `${payment.amount} × ${configuration.variableRate} % + ${configuration.transactionFeeCents}, cap ${configuration.feeCapCents ?? 'none'}, half-up`,
      },
    });
  }
  return findings;
}

function describeConfiguration(configuration: FeeConfiguration | undefined) {
  if (!configuration) return null;
  return {
    id: configuration.id,
    fee_type: configuration.feeType,
    variable_rate: configuration.variableRate,
    transaction_fee_cents: configuration.transactionFeeCents,
    fee_cap_cents: configuration.feeCapCents,
    effective_start: configuration.effectiveStart,
    effective_end: configuration.effectiveEnd,
  };
}
