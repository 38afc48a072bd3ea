import type { Queryable } from '../db/pool.ts';
import type { FeeConfiguration } from '../domain/feeConfiguration.ts';
import { isEffectiveAt } from '../domain/feeSelection.ts';
import { listFeeConfigurationAccounts, listFeeConfigurationHistory } from '../feeConfigurations/queries.ts';
import { listOpenFindingSubjects } from '../findings/queries.ts';
import { sumRepricing } from './queries.ts';

const IMPACT_WINDOW_MS = 30 * 24 * 3600 * 1000;

type Snapshot = { id: string; effective_end: string | null };
export type FeeConfigurationReport = Awaited<ReturnType<typeof buildFeeConfigurationReport>>;

// How a configuration reads in the report (its JSON, CSV and HTML).
const describe = (row: FeeConfiguration) => ({
  id: row.id,
  variable_rate: row.variableRate,
  transaction_fee_cents: row.transactionFeeCents,
  fee_cap_cents: row.feeCapCents,
  effective_start: row.effectiveStart.toISOString(),
  effective_end: row.effectiveEnd?.toISOString() ?? null,
});

/**
 * The fee configuration comparison: per sub account and fee type, what is new, retired or scheduled since
 * the previous report, what was rewritten or breaks the chain, what is effective now, and the impact of
 * each new or scheduled configuration: the last 30 days of that type's fees re-priced under it, against
 * what was charged, per currency.
 */
export async function buildFeeConfigurationReport(
  db: Queryable,
  now: Date,
  previous: { id: string; configurations: Snapshot[] } | null,
) {
  const before = new Map((previous?.configurations ?? []).map((item) => [item.id, item]));
  const broken = await listOpenFindingSubjects(db, 'fee_configuration_chain_broken');
  const snapshot: Snapshot[] = [];
  const accounts = [];
  for (const accountId of await listFeeConfigurationAccounts(db)) {
    const rows = await listFeeConfigurationHistory(db, accountId);
    const feeTypes = [];
    for (const feeType of [...new Set(rows.map((row) => row.feeType))].sort()) {
      const versions = rows.filter((row) => row.feeType === feeType);
      const added = versions.filter((row) => previous !== null && !before.has(row.id));
      const retired = versions.filter((row) => {
        const ended = row.effectiveEnd !== null && row.effectiveEnd <= now;
        const earlier = before.get(row.id);
        return (
          ended &&
          (earlier === undefined
            ? previous !== null
            : earlier.effective_end === null || new Date(earlier.effective_end) > now)
        );
      });
      const scheduled = versions.filter((row) => row.effectiveStart > now);
      const impact = [];
      for (const change of [...new Set([...added, ...scheduled])]) {
        const since = new Date(now.getTime() - IMPACT_WINDOW_MS);
        const repricing = await sumRepricing(db, { accountId, since, configuration: change });
        for (const row of repricing)
          impact.push({ configuration_id: change.id, ...row, difference: row.repriced - row.charged });
      }
      const effective = versions.find((row) => row.vanishedAt === null && isEffectiveAt(row, now));
      feeTypes.push({
        fee_type: feeType,
        effective: effective ? describe(effective) : null,
        new: added.map(describe),
        retired: retired.map(describe),
        scheduled: scheduled.map((row) => ({
          ...describe(row),
          takes_effect: row.effectiveStart.toISOString(),
        })),
        rewritten: versions
          .filter((row) => row.providerValues !== null || row.vanishedAt !== null)
          .map((row) => ({
            ...describe(row),
            vanished: row.vanishedAt !== null,
            provider_values: row.providerValues,
          })),
        chain_broken: broken.has(`${accountId}:${feeType}`),
        impact,
      });
      for (const row of versions)
        snapshot.push({ id: row.id, effective_end: row.effectiveEnd?.toISOString() ?? null });
    }
    accounts.push({ account_id: accountId, fee_types: feeTypes });
  }
  return {
    kind: 'fee-configurations' as const,
    generated_at: now.toISOString(),
    previous_report_id: previous?.id ?? null,
    accounts,
    configurations: snapshot,
  };
}
