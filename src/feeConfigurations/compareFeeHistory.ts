import type { FeeConfiguration } from '../domain/feeConfiguration.ts';
import { parseRate } from '../domain/feeFormula.ts';
import type { FindingDraft } from '../findings/findings.ts';

export type HistoryComparison = {
  added: FeeConfiguration[];
  /** Stored versions whose `effective_end` the provider set (the one change allowed). */
  ended: { id: string; effectiveEnd: Date }[];
  /** Stored versions the provider now shows differently (values as it shows them). */
  rewritten: { id: string; providerValues: FeeConfiguration }[];
  vanished: string[];
  findings: FindingDraft[];
};

function sameRate(a: string, b: string): boolean {
  const x = parseRate(a);
  const y = parseRate(b);
  return x.numerator * y.scale === y.numerator * x.scale;
}

const time = (value: Date | null) => (value === null ? null : value.getTime());

/** Fields that differ, `effective_end` going from none to a value excepted. */
function changedFields(stored: FeeConfiguration, current: FeeConfiguration): string[] {
  const changed: string[] = [];
  if (stored.accountId !== current.accountId) changed.push('account_id');
  if (stored.feeType !== current.feeType) changed.push('fee_type');
  if (!sameRate(stored.variableRate, current.variableRate)) changed.push('variable_rate');
  if (stored.transactionFeeCents !== current.transactionFeeCents) changed.push('transaction_fee_cents');
  if (stored.transactionFeeCurrency !== current.transactionFeeCurrency)
    changed.push('transaction_fee_currency');
  if (stored.feeCapCents !== current.feeCapCents) changed.push('fee_cap_cents');
  if (time(stored.effectiveStart) !== time(current.effectiveStart)) changed.push('effective_start');
  if (stored.effectiveEnd !== null && time(stored.effectiveEnd) !== time(current.effectiveEnd))
    changed.push('effective_end');
  return changed;
}

/**
 * Compares the stored history of a sub account with what the provider returns now. Configurations have no
 * update and no delete: a new version is added, `effective_end` may be set once, and anything else (a
 * changed field, a version gone) is reported as `fee_configuration_history_rewritten` for as long as it lasts.
 */
export function compareFeeHistory(
  stored: FeeConfiguration[],
  current: FeeConfiguration[],
): HistoryComparison {
  const result: HistoryComparison = { added: [], ended: [], rewritten: [], vanished: [], findings: [] };
  const currentById = new Map(current.map((version) => [version.id, version]));
  const storedIds = new Set(stored.map((version) => version.id));
  result.added = current.filter((version) => !storedIds.has(version.id));
  for (const version of stored) {
    const now = currentById.get(version.id);
    if (!now) {
      result.vanished.push(version.id);
      result.findings.push({
        code: 'fee_configuration_history_rewritten',
        severity: 'error',
        subjectType: 'fee_configuration',
        subjectId: version.id,
        expected: version,
        actual: null,
        atStake: null,
        details: { change: 'vanished', account_id: version.accountId, fee_type: version.feeType },
      });
      continue;
    }
    const changed = changedFields(version, now);
    if (changed.length > 0) {
      result.rewritten.push({ id: version.id, providerValues: now });
      result.findings.push({
        code: 'fee_configuration_history_rewritten',
        severity: 'error',
        subjectType: 'fee_configuration',
        subjectId: version.id,
        expected: version,
        actual: now,
        atStake: null,
        details: {
          change: 'fields',
          fields: changed,
          account_id: version.accountId,
          fee_type: version.feeType,
        },
      });
    } else if (version.effectiveEnd === null && now.effectiveEnd !== null) {
      result.ended.push({ id: version.id, effectiveEnd: now.effectiveEnd });
    }
  }
  return result;
}
