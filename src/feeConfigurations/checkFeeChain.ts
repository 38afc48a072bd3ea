import type { FeeConfiguration } from '../domain/feeConfiguration.ts';
import { isEffectiveAt } from '../domain/feeSelection.ts';
import { BASE_FEE_TYPES, isBaseFeeType } from '../domain/feeTypes.ts';
import type { FindingDraft } from '../findings/findings.ts';

/**
 * The seed's chaining rules over one sub account's history: consecutive versions of a type meet with no
 * overlap (and, for the base processing types, no gap: they always have an active configuration and the
 * last one has no end). Optional types may have gaps: retiring one is allowed.
 */
export function checkFeeChain(accountId: string, versions: FeeConfiguration[], now: Date): FindingDraft[] {
  const findings: FindingDraft[] = [];
  const types = new Set([...BASE_FEE_TYPES, ...versions.map((version) => version.feeType)]);
  for (const feeType of types) {
    const chain = versions
      .filter((version) => version.feeType === feeType)
      .sort((a, b) => a.effectiveStart.getTime() - b.effectiveStart.getTime() || a.id.localeCompare(b.id));
    const subject = { subjectType: 'fee_configuration_chain', subjectId: `${accountId}:${feeType}` };
    const breaks: Record<string, unknown>[] = [];
    chain.forEach((version, index) => {
      const next = chain[index + 1];
      if (!next) return;
      const end = version.effectiveEnd === null ? Number.POSITIVE_INFINITY : version.effectiveEnd.getTime();
      const nextStart = next.effectiveStart.getTime();
      if (end > nextStart)
        breaks.push({
          kind: 'overlap',
          configuration_id: version.id,
          next_configuration_id: next.id,
          effective_end: version.effectiveEnd,
          next_effective_start: next.effectiveStart,
        });
      else if (end < nextStart && isBaseFeeType(feeType))
        breaks.push({
          kind: 'gap',
          configuration_id: version.id,
          next_configuration_id: next.id,
          effective_end: version.effectiveEnd,
          next_effective_start: next.effectiveStart,
        });
    });
    if (breaks.length > 0) {
      findings.push({
        code: 'fee_configuration_chain_broken',
        severity: 'error',
        ...subject,
        expected: 'consecutive configurations meet exactly',
        actual: breaks.map((item) => item.kind),
        atStake: null,
        details: { account_id: accountId, fee_type: feeType, breaks },
      });
    }
    if (isBaseFeeType(feeType)) {
      const active = chain.find((version) => isEffectiveAt(version, now));
      const last = chain.at(-1);
      if (!active || (last && last.effectiveEnd !== null)) {
        findings.push({
          code: 'base_fee_configuration_missing',
          severity: 'error',
          ...subject,
          expected: 'an active configuration with no end',
          actual: active ? `ends at ${last?.effectiveEnd?.toISOString()}` : null,
          atStake: null,
          details: {
            account_id: accountId,
            fee_type: feeType,
            versions: chain.length,
            checked_at: now.toISOString(),
          },
        });
      }
    }
  }
  return findings;
}
