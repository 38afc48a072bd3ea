import { listSubAccounts } from '../src/feeConfigurations/queries.ts';
import { providerClientFromConfig } from '../src/provider/clientFromConfig.ts';
import { defineJob } from '../src/queue/job.ts';
import { sweepAccount } from '../src/sweep/sweepAccount.ts';

/**
 * Compares every sub account's recent payments and forwarding requests (PROVIDER_SUB_ACCOUNTS and every
 * account seen in events, or the one named) with the provider's API: what never arrived is stored as an
 * `api` snapshot and projected, and a state no webhook brought within the grace period opens
 * `event_missed`. Without provider credentials it does nothing (said once at start).
 */
export default defineJob('missed-event-sweep', {
  async handle(payload, context) {
    const client = providerClientFromConfig(context.config, context.log);
    if (!client) return;
    const accounts = await listSubAccounts(context.pool, {
      named: payload.account_id,
      configured: context.config.PROVIDER_SUB_ACCOUNTS,
    });
    const since = new Date(context.now().getTime() - context.config.SWEEP_LOOKBACK_HOURS * 3600_000);
    for (const accountId of accounts) {
      await sweepAccount({ ...context, client }, accountId, {
        kind: 'sweep',
        since,
        graceMinutes: context.config.SWEEP_GRACE_MINUTES,
      });
    }
  },
});
