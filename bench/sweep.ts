// npm run bench:sweep [-- PAYMENTS]: the missed-event sweep of one sub account whose API lists 100,000
// payments (default) created in the look-back window, none of them known to Tally, against the provider
// simulator. Prints the sweep's time and the process's peak RSS next to a same-run baseline: just paging
// the simulator's list with the same client. The ratio is the sweep's own cost (compare, store, enqueue).

import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSimulator } from '../simulator/server.ts';
import { closeServer, serve } from '../src/api/serve.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { createProviderClient } from '../src/provider/client.ts';
import { sweepAccount } from '../src/sweep/sweepAccount.ts';
import { countArgument, sampleRss, timed } from './measure.ts';

useBigintParser();

const PAYMENTS = countArgument('PAYMENTS', 100_000);
const ACCOUNT = 'acc_bench';
const log = createLogger('warn');
const rss = sampleRss();

const simulator = createSimulator({ clientId: 'bench', clientSecret: 'bench-secret' });
const now = Date.now();
simulator.store.create(ACCOUNT, 'processing_ecomm', {
  variable_rate: 2.9,
  transaction_fee_cents: 30,
  fee_cap_cents: null,
  effective_start: new Date(now - 30 * 24 * 3600_000).toISOString(),
});
simulator.seedPayments(PAYMENTS, ACCOUNT, {
  createdBetween: [new Date(now - 48 * 3600_000), new Date(now - 3600_000)],
});
const server = await serve(simulator.app, 0);
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const client = createProviderClient({ baseUrl, clientId: 'bench', clientSecret: 'bench-secret', log });

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-sweep-'));
await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
const database = await startEmbeddedPostgres(dataDir, log);
try {
  await release(database.connectionString, log);
  const pool = createPool(database.connectionString, log, 4);

  const [listed, pagingSeconds] = await timed(`baseline: page ${PAYMENTS} payments`, async () => {
    let count = 0;
    for await (const page of client.paymentPages(ACCOUNT)) count += page.length;
    return count;
  });
  const rssBefore = rss.peak();
  const [counts, sweepSeconds] = await timed(`sweep of ${PAYMENTS} payments`, () =>
    sweepAccount({ pool, client, log, now: () => new Date() }, ACCOUNT, {
      kind: 'sweep',
      since: new Date(now - 72 * 3600_000),
      graceMinutes: 30,
    }),
  );
  const stored = await pool.query(`select count(*)::int as n from events where source = 'api'`);
  console.log(
    JSON.stringify(
      {
        payments: PAYMENTS,
        listed_by_baseline: listed,
        sweep: counts,
        api_snapshots_stored: stored.rows[0].n,
        baseline_paging_seconds: Number(pagingSeconds.toFixed(2)),
        sweep_seconds: Number(sweepSeconds.toFixed(2)),
        ratio_sweep_to_paging: Number((sweepSeconds / pagingSeconds).toFixed(2)),
        peak_rss_mb: Math.round(rss.peak() / 2 ** 20),
        peak_rss_before_sweep_mb: Math.round(rssBefore / 2 ** 20),
      },
      null,
      2,
    ),
  );
  await pool.end();
} finally {
  rss.stop();
  await closeServer(server);
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
