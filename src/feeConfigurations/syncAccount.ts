import { type Pool, withTransaction } from '../db/pool.ts';
import { FEE_TYPES } from '../domain/feeTypes.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import { RECONCILE_PAYMENT_QUEUE } from '../projection/processStoredEvent.ts';
import { type ProviderClient, ProviderError } from '../provider/client.ts';
import {
  type ProviderFeeConfiguration,
  providerFeeConfigurationSchema,
} from '../provider/feeConfigurationSchema.ts';
import type { Boss } from '../queue/boss.ts';
import { checkFeeChain } from './checkFeeChain.ts';
import { type ConfigurationVersion, compareFeeHistory } from './compareFeeHistory.ts';
import {
  type FeeConfigurationRow,
  insertFeeConfigurations,
  listFeeConfigurations,
  listPaymentIdsOfAccount,
  updateFeeConfigurationsSeen,
  upsertFeeSync,
} from './queries.ts';

export type SyncContext = { pool: Pool; boss: Boss; client: ProviderClient; now: Date };

/**
 * Fetches every fee type's history of one sub account, stores new versions, records rewritten history
 * and chain problems as findings, then queues every payment of the account for reconciliation.
 * Returns what changed.
 */
export async function syncAccount(context: SyncContext, accountId: string) {
  const fetched: (ProviderFeeConfiguration & { platform_account_id?: string | null })[] = [];
  for (const feeType of FEE_TYPES) {
    const path = `/v1/sub_accounts/${encodeURIComponent(accountId)}/fee_configurations/${feeType}/history`;
    const items = await context.client.listAll(path).catch((err: unknown) => {
      // A type the account never had may answer 404 rather than an empty list.
      if (err instanceof ProviderError && err.status === 404) return [];
      throw err;
    });
    fetched.push(...items.map((item) => providerFeeConfigurationSchema.parse(item)));
  }
  const current = fetched.map(fromProvider);
  const stored = (await listFeeConfigurations(context.pool, accountId)).map(fromStored);
  const comparison = compareFeeHistory(stored, current);

  // The chain is judged on the provider's history as it is now.
  const findings = [...comparison.findings, ...checkFeeChain(accountId, current, context.now)];
  await withTransaction(context.pool, async (client) => {
    const added = comparison.added.map((version) => ({
      ...version,
      platformAccountId: fetched.find((item) => item.id === version.id)?.platform_account_id ?? null,
    }));
    await insertFeeConfigurations(client, added, context.now);
    await updateFeeConfigurationsSeen(client, accountId, comparison, context.now);
    const scope = { scope: `fee-configurations:${accountId}`, accountId, currency: null, now: context.now };
    await recordFindings(client, scope, findings);
    await upsertFeeSync(client, accountId, context.now);
  });
  const queued = await queueReconciliations(context, accountId);
  return {
    added: comparison.added.length,
    ended: comparison.ended.length,
    findings: findings.length,
    queued,
  };
}

async function queueReconciliations(context: SyncContext, accountId: string): Promise<number> {
  let queued = 0;
  let afterId = '';
  for (;;) {
    const ids = await listPaymentIdsOfAccount(context.pool, accountId, { afterId, limit: 1000 });
    if (ids.length === 0) return queued;
    await context.boss.insert(
      RECONCILE_PAYMENT_QUEUE,
      ids.map((paymentId) => ({ data: { payment_id: paymentId }, singletonKey: paymentId })),
    );
    queued += ids.length;
    afterId = ids.at(-1) as string;
  }
}

function fromProvider(item: ProviderFeeConfiguration): ConfigurationVersion {
  return {
    id: item.id,
    accountId: item.account_id,
    feeType: item.fee_type,
    variableRate: String(item.variable_rate),
    transactionFeeCents: item.transaction_fee_cents,
    transactionFeeCurrency: item.transaction_fee_currency ?? null,
    feeCapCents: item.fee_cap_cents ?? null,
    effectiveStart: new Date(item.effective_start).toISOString(),
    effectiveEnd: item.effective_end ? new Date(item.effective_end).toISOString() : null,
  };
}

function fromStored(row: FeeConfigurationRow): ConfigurationVersion {
  return {
    id: row.id,
    accountId: row.account_id,
    feeType: row.fee_type,
    variableRate: row.variable_rate,
    transactionFeeCents: row.transaction_fee_cents,
    transactionFeeCurrency: row.transaction_fee_currency,
    feeCapCents: row.fee_cap_cents,
    effectiveStart: row.effective_start.toISOString(),
    effectiveEnd: row.effective_end ? row.effective_end.toISOString() : null,
  };
}
