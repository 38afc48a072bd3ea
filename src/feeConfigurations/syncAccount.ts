import { type Pool, withTransaction } from '../db/pool.ts';
import type { FeeConfiguration } from '../domain/feeConfiguration.ts';
import { FEE_TYPES } from '../domain/feeTypes.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import { type ProviderClient, ProviderError } from '../provider/client.ts';
import { providerFeeConfigurationSchema } from '../provider/feeConfigurationSchema.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueueReconciliations } from '../queue/enqueueReconciliations.ts';
import { checkFeeChain } from './checkFeeChain.ts';
import { compareFeeHistory } from './compareFeeHistory.ts';
import {
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
  const current: FeeConfiguration[] = [];
  for (const feeType of FEE_TYPES) {
    const path = `/v1/sub_accounts/${encodeURIComponent(accountId)}/fee_configurations/${feeType}/history`;
    const items = await context.client.listAll(path).catch((err: unknown) => {
      // A type the account never had may answer 404 rather than an empty list.
      if (err instanceof ProviderError && err.status === 404) return [];
      throw err;
    });
    current.push(...items.map((item) => providerFeeConfigurationSchema.parse(item)));
  }
  const stored = await listFeeConfigurations(context.pool, accountId);
  const comparison = compareFeeHistory(stored, current);

  // The chain is judged on the provider's history as it is now.
  const findings = [...comparison.findings, ...checkFeeChain(accountId, current, context.now)];
  await withTransaction(context.pool, async (client) => {
    await insertFeeConfigurations(client, comparison.added, context.now);
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
    queued += await enqueueReconciliations(context.boss, ids);
    afterId = ids.at(-1) as string;
  }
}
