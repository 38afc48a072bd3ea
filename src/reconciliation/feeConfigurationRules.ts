import type { FeeConfiguration } from '../domain/feeConfiguration.ts';
import { calculateFee } from '../domain/feeFormula.ts';
import { expectedProcessingType, isEffectiveAt } from '../domain/feeSelection.ts';
import type { FindingDraft } from '../findings/findings.ts';
import type { PaymentFacts, PaymentFeeToReconcile, PaymentToReconcile } from './queries.ts';

/**
 * The sub account's configurations when fees can be checked against them: they have been synced, the
 * payment's creation time is known, and its payment mode has fee configuration types of its own.
 */
export function checkableConfigurations(facts: PaymentFacts): FeeConfiguration[] | null {
  const { payment, configurations } = facts;
  if (configurations === null || payment.createdAt === null || payment.methodKind === 'other') return null;
  return configurations;
}

/** A configuration as finding details show it. */
export function describeConfiguration(configuration: FeeConfiguration) {
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

/**
 * Each fee priced by a configuration (`source_configuration_id`) against that configuration: it must be
 * in the synced history, effective when the payment was created, the type the seed's selection rules pick,
 * and priced by the seed's formula. Explicit fees (no source) are overrides, not checked.
 */
export function checkFeeConfigurations(facts: PaymentFacts): FindingDraft[] {
  const configurations = checkableConfigurations(facts);
  const createdAt = facts.payment.createdAt;
  if (configurations === null || createdAt === null) return [];
  return facts.fees
    .filter((fee) => fee.sourceConfigurationId !== null)
    .flatMap((fee) => checkFee(facts.payment, fee, configurations, createdAt));
}

/**
 * The type the seed's selection rules pick for `fee` at `at`: `platform` for a platform fee; for a processing
 * fee the card brand's type while one is effective, else the base type of the payment's channel (a retired
 * brand falls back to the base). Null when the payment method is unknown.
 */
const selectedType = (
  payment: PaymentToReconcile,
  fee: PaymentFeeToReconcile,
  configurations: FeeConfiguration[],
  at: Date,
) => (fee.type === 'platform_fee' ? 'platform' : expectedProcessingType(payment, configurations, at));

// The configuration of `feeType` in effect at `at`: what the fee should have been priced by.
const effectiveOfType = (configurations: FeeConfiguration[], feeType: string, at: Date) =>
  configurations.find((c) => c.feeType === feeType && isEffectiveAt(c, at));

/**
 * What a fee judged against the wrong configuration puts at stake: the difference between what was charged
 * and what the configuration the selection rules pick at the payment's creation gives by the same formula,
 * either way. Null when none of the selected type was in effect (the chain and base findings say so, and a
 * retired platform configuration picks none): nothing to measure against.
 */
function stakeAgainst(
  payment: PaymentToReconcile,
  fee: PaymentFeeToReconcile,
  right: FeeConfiguration | undefined,
) {
  return right === undefined ? null : Math.abs(fee.amount - calculateFee(payment.amount, right));
}

function checkFee(
  payment: PaymentToReconcile,
  fee: PaymentFeeToReconcile,
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
        // Nothing known prices it: the whole fee is unproven.
        atStake: fee.amount,
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
  const expectedType = selectedType(payment, fee, configurations, createdAt);
  // An unknown payment method leaves the rules nothing to pick: the fee's own type is the best measure.
  const measuredType = expectedType ?? configuration.feeType;
  const atStake = stakeAgainst(payment, fee, effectiveOfType(configurations, measuredType, createdAt));
  if (!isEffectiveAt(configuration, createdAt)) {
    findings.push({
      code: 'fee_configuration_not_effective',
      severity: 'error',
      ...subject,
      expected: { effective_start: configuration.effectiveStart, effective_end: configuration.effectiveEnd },
      actual: createdAt,
      atStake,
      details: { payment_id: payment.id, payment_created_at: createdAt, configuration: described },
    });
  }
  if (expectedType !== null && configuration.feeType !== expectedType) {
    findings.push({
      code: 'fee_configuration_not_applicable',
      severity: 'error',
      ...subject,
      expected: expectedType,
      actual: configuration.feeType,
      atStake,
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
      atStake: Math.abs(fee.amount - expectedAmount),
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
