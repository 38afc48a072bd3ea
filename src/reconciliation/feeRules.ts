import { calculateFee } from '../domain/feeFormula.ts';
import { effectivePlatformConfiguration } from '../domain/feeSelection.ts';
import type { FindingDraft } from '../findings/findings.ts';
import { checkableConfigurations, describeConfiguration } from './feeConfigurationRules.ts';
import type { PaymentFacts } from './queries.ts';

// An empty breakdown with a non-zero (or no) total means the provider has not reported it yet.
const breakdownReported = ({ payment, fees }: PaymentFacts) => fees.length > 0 || payment.feeAmount === 0;

// A failed or voided payment that was charged no fees is not missing any.
const neverCharged = ({ payment, fees }: PaymentFacts) =>
  fees.length === 0 && (payment.status === 'failed' || payment.status === 'canceled');

/** `fee_total_mismatch`: the fees of the breakdown must add up to the payment's `fee_amount`. */
export function checkFeeTotal(facts: PaymentFacts): FindingDraft[] {
  const { payment, fees } = facts;
  const total = fees.reduce((sum, fee) => sum + fee.amount, 0);
  if (payment.feeAmount === null || !breakdownReported(facts) || total === payment.feeAmount) return [];
  return [
    {
      code: 'fee_total_mismatch',
      severity: 'error',
      subjectType: 'payment',
      subjectId: payment.id,
      expected: payment.feeAmount,
      actual: total,
      atStake: Math.abs(payment.feeAmount - total),
      details: {
        fee_amount: payment.feeAmount,
        sum_of_fees: total,
        fees: fees.map((fee) => ({ id: fee.id, amount: fee.amount })),
      },
    },
  ];
}

/** `platform_fee_missing`: a `platform` configuration was effective when the payment was created. */
export function checkPlatformFee(facts: PaymentFacts): FindingDraft[] {
  const { payment, fees } = facts;
  const configurations = checkableConfigurations(facts);
  const createdAt = payment.createdAt;
  if (configurations === null || createdAt === null || !breakdownReported(facts) || neverCharged(facts))
    return [];
  const platform = effectivePlatformConfiguration(configurations, createdAt);
  if (!platform || fees.some((fee) => fee.type === 'platform_fee')) return [];
  return [
    {
      code: 'platform_fee_missing',
      severity: 'warning',
      subjectType: 'payment',
      subjectId: payment.id,
      expected: calculateFee(payment.amount, platform),
      actual: 0,
      atStake: calculateFee(payment.amount, platform),
      details: { configuration: describeConfiguration(platform), payment_created_at: createdAt },
    },
  ];
}

export type FeeCheckCounts = { overrides: number; unverified: number };

/**
 * What the fee rules did not check. Overrides: explicit fees (no source configuration) and the legacy
 * `application_fee_amount`. Unverified: fees whose configurations are unknown (sync off or not yet run,
 * no creation time), and a payment whose mode has no fee configuration type of its own.
 */
export function countFeeChecks(facts: PaymentFacts): FeeCheckCounts {
  const { payment, fees } = facts;
  const checkable = checkableConfigurations(facts) !== null;
  const explicit = fees.filter((fee) => fee.sourceConfigurationId === null).length;
  const sourced = fees.length - explicit;
  const uncheckedMode = payment.methodKind === 'other' && fees.length === 0 && !neverCharged(facts);
  return {
    overrides: explicit + (payment.applicationFeeAmount ? 1 : 0),
    unverified: (checkable ? 0 : sourced) + (uncheckedMode ? 1 : 0),
  };
}
