import { listSubAccounts } from '../src/feeConfigurations/queries.ts';
import { syncAccount } from '../src/feeConfigurations/syncAccount.ts';
import { providerClientFromConfig } from '../src/provider/clientFromConfig.ts';
import { enqueue } from '../src/queue/enqueue.ts';
import { defineJob } from '../src/queue/job.ts';

/**
 * Fetches the fee configuration history of every sub account seen in events (or the one named), stores
 * new versions, reports rewritten history and broken chains, and re-reconciles the accounts' payments.
 * Without provider credentials it does nothing (said once at start; fee checks count as unverified).
 */
export default defineJob('fee-configuration-sync', {
  async handle(payload, context) {
    const client = providerClientFromConfig(context.config, context.log);
    if (!client) return;
    const accounts = await listSubAccounts(context.pool, {
      named: payload.account_id,
      configured: context.config.PROVIDER_SUB_ACCOUNTS,
    });
    context.log.info({ accounts: accounts.length }, 'fee configuration sync started');
    let done = 0;
    for (const accountId of accounts) {
      const result = await syncAccount(
        { pool: context.pool, boss: context.boss, client, now: context.now() },
        accountId,
      );
      done += 1;
      context.log.info(
        { accountId, ...result, progress: `${done}/${accounts.length}` },
        'fee configurations synced',
      );
    }
    // A full sync ends with the comparison report; a single-account sync does not.
    if (!payload.account_id) await enqueue(context.boss, 'fee-configuration-report', [{}]);
  },
});
