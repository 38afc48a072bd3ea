import { listSubAccounts } from '../src/feeConfigurations/queries.ts';
import { listAccountLedger } from '../src/payouts/listLedger.ts';
import { syncAccountPayouts, syncOnePayout } from '../src/payouts/syncPayouts.ts';
import { providerClientFromConfig } from '../src/provider/clientFromConfig.ts';
import { defineJob } from '../src/queue/job.ts';

/**
 * Stores every sub account's payouts created within PAYOUT_LOOKBACK_DAYS (PROVIDER_SUB_ACCOUNTS and every
 * account seen in events, or the one named), each new or changed one with all its lines, as `api` snapshots
 * the worker projects, then lists the account's whole ledger for the month-end tie-out; or the one payout named (a `payout.*` delivery whose lines are not in yet). Without
 * provider credentials it does nothing (said once at start).
 */
export default defineJob('payout-sync', {
  async handle(payload, context) {
    const client = providerClientFromConfig(context.config, context.log);
    if (!client) return;
    const sync = { ...context, client };
    if (payload.account_id !== undefined && payload.payout_id !== undefined) {
      await syncOnePayout(sync, payload.account_id, payload.payout_id);
      return;
    }
    const accounts = await listSubAccounts(context.pool, {
      named: payload.account_id,
      configured: context.config.PROVIDER_SUB_ACCOUNTS,
    });
    const since = new Date(context.now().getTime() - context.config.PAYOUT_LOOKBACK_DAYS * 24 * 3600_000);
    for (const accountId of accounts) {
      await syncAccountPayouts(sync, accountId, since);
      await listAccountLedger(sync, accountId);
    }
  },
});
