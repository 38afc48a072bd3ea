import { parseArgs } from 'node:util';
import { createPool } from '../db/pool.ts';
import { listSubAccounts } from '../feeConfigurations/queries.ts';
import { providerClientFromConfig } from '../provider/clientFromConfig.ts';
import type { SweepCounts } from '../sweep/queries.ts';
import { sweepAccount } from '../sweep/sweepAccount.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { usages } from './usages.ts';

const summary = (counts: SweepCounts) =>
  `listed ${counts.listed}, new ${counts.new}, newer ${counts.newer}, unchanged ${counts.unchanged}`;

/**
 * The first-install import of history: every payment and forwarding request the provider's API lists,
 * created since the day given, through the sweep's own code (stored as `api` snapshots, projected by the
 * worker of the running Tally). It never raises `event_missed`: Tally was not there to miss them. Stopped
 * and run again, it resumes: what it already stored is listed as unchanged and not stored twice.
 */
export async function backfillHistory(args: string[], { config, log }: CliContext): Promise<number> {
  const { values } = parseArgs({ args, options: { since: { type: 'string' }, account: { type: 'string' } } });
  const since = values.since;
  if (!since || !/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since)))
    throw new Error(`--since must be a day, YYYY-MM-DD; usage: ${usages.backfill}`);
  // The account goes into the Sub-Account header: refuse what a header cannot carry, naming the option.
  if (values.account !== undefined && !/^[\w-]{1,255}$/.test(values.account))
    throw new Error(
      `--account must be a sub account id (letters, digits, _ or -); usage: ${usages.backfill}`,
    );
  const client = providerClientFromConfig(config, log);
  if (!client)
    throw new Error('PROVIDER_BASE_URL, PROVIDER_CLIENT_ID and PROVIDER_CLIENT_SECRET must be set');
  const databaseUrl = await resolveDatabaseUrl(config);
  const pool = createPool(databaseUrl, log, 4);
  try {
    const accounts = await listSubAccounts(pool, {
      named: values.account,
      configured: config.PROVIDER_SUB_ACCOUNTS,
    });
    if (accounts.length === 0)
      throw new Error('no sub account: name one with --account or PROVIDER_SUB_ACCOUNTS');
    const total = { listed: 0, new: 0, newer: 0, unchanged: 0, missed: 0 };
    for (const accountId of accounts) {
      const counts = await sweepAccount({ pool, client, log, now: () => new Date() }, accountId, {
        kind: 'backfill',
        since: new Date(`${since}T00:00:00Z`),
        graceMinutes: config.SWEEP_GRACE_MINUTES,
        onPage: (sofar) => {
          if (process.stderr.isTTY) process.stderr.write(`\r${accountId}: ${summary(sofar)}`);
        },
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      for (const key of Object.keys(total) as (keyof SweepCounts)[]) total[key] += counts[key];
    }
    process.stdout.write(`${summary(total)}\n`);
    return 0;
  } finally {
    await pool.end();
  }
}
