// npm run bench:worker [-- N]: N stored deliveries (default 50,000) processed end to end by the real
// worker (its claim loop over the raw log), then every payment they touched reconciled (reconcile-payments
// jobs, which run alongside), against a plain single-row INSERT … ON CONFLICT of the same rows, same run.
// BENCH_STATEMENTS=1 writes what each delivery cost Postgres, by statement and table (bench/statementProfile.ts).
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jobs } from '../jobs/index.ts';
import { startChangeSequencing } from '../src/changes/sequencingLoop.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, useBigintParser } from '../src/db/pool.ts';
import { readsFromPrimary } from '../src/db/readPool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { startEventProcessing } from '../src/projection/processingLoop.ts';
import { createBoss } from '../src/queue/boss.ts';
import { createQueues } from '../src/queue/job.ts';
import { startWorkers } from '../src/queue/workers.ts';
import { countArgument, endPool, untilProjected } from './measure.ts';
import {
  STATEMENT_STATISTICS_SETTINGS,
  startStatementProfile,
  statementProfileWanted,
} from './statementProfile.ts';

useBigintParser();

const N = countArgument('N', 50_000);
const CLIENTS = 4;
const log = createLogger('warn');

function delivery(index: number) {
  const minute = String(index % 60).padStart(2, '0');
  const body = JSON.stringify({
    id: `evt_bench_${index}`,
    event_name: index % 5 === 4 ? 'payment.refunded' : 'payment.succeeded',
    account_id: `acc_${index % 50}`,
    account_type: 'live',
    platform_account_id: 'acc_platform',
    idempotency_key: null,
    request_id: null,
    version: 'v1',
    data:
      index % 5 === 4
        ? {
            id: `re_${index}`,
            payment_id: `py_${index - 1}`,
            amount: 100,
            status: 'succeeded',
            reason: 'customer_request',
            returned_fees: [
              {
                id: `rtfee_${index}`,
                payment_fee_id: `pyfee_${index - 1}_p`,
                type: 'processing_fee',
                returned_amount: 3,
                original_amount: 38,
                remaining_amount: 35,
                currency: 'usd',
              },
            ],
            updated_at: `2026-11-02T10:${minute}:30Z`,
          }
        : {
            id: `py_${index}`,
            account_id: `acc_${index % 50}`,
            amount: 1234 + index,
            currency: 'usd',
            status: 'succeeded',
            capture_strategy: 'automatic',
            captured: true,
            fee_amount: 38,
            payment_method: { card: { id: `pm_${index}`, brand: 'visa', acct_last_four: '4242' } },
            fees: [
              {
                id: `pyfee_${index}_p`,
                type: 'processing_fee',
                amount: 38,
                remaining_amount: 38,
                currency: 'usd',
                source_configuration_id: 'sfc_1',
                source_fee_type: 'processing_ecomm',
              },
            ],
            refunds: [],
            created_at: `2026-11-02T10:${minute}:00Z`,
            updated_at: `2026-11-02T10:${minute}:10Z`,
          },
  });
  return { eventId: `evt_bench_${index}`, body, sha: createHash('sha256').update(body).digest() };
}

async function timed(label: string, work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`${label}: ${seconds.toFixed(2)} s\n`);
  return seconds;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-'));
await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
const database = await startEmbeddedPostgres(
  dataDir,
  log,
  statementProfileWanted() ? STATEMENT_STATISTICS_SETTINGS : [],
);
try {
  // The close's days kept, as `release` keeps them in production: every write runs their triggers.
  await release(database.connectionString, log, { businessTimeZone: 'UTC' });
  const pool = createPool(database.connectionString, log, CLIENTS + 4);
  const pending = async (sql: string) => (await pool.query<{ pending: boolean }>(sql)).rows[0]?.pending;
  const rows = Array.from({ length: N }, (_, index) => delivery(index));
  await pool.query('create table baseline (like events including all)');

  // Baseline: the same rows, one INSERT … ON CONFLICT DO NOTHING each, from CLIENTS connections.
  const baselineSeconds = await timed('baseline inserts', async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < rows.length) {
          const row = rows[next++] as (typeof rows)[number];
          await pool.query(
            `insert into baseline (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, received_at)
             values ($1, 'payment.succeeded', 'acc', 'live', '{}', $2, $3, now()) on conflict do nothing`,
            [row.eventId, Buffer.from(row.body), row.sha],
          );
        }
      }),
    );
  });

  // Stored deliveries as the webhook stores them (raw bytes, the only copy of a body; the worker parses them),
  // written in bulk so only the worker is measured. The raw log is the worker's queue.
  for (let start = 0; start < rows.length; start += 1000) {
    const slice = rows.slice(start, start + 1000);
    await pool.query(
      `insert into events (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, received_at)
       select e->>'event_id', e->>'event_name', e->>'account_id', 'live', '{}',
              convert_to(e->>'raw', 'utf8'), decode(e->>'sha', 'hex'), now()
         from jsonb_array_elements($1::jsonb) e`,
      [
        JSON.stringify(
          slice.map((row) => {
            const { event_name, account_id } = JSON.parse(row.body);
            return {
              event_id: row.eventId,
              event_name,
              account_id,
              raw: row.body,
              sha: row.sha.toString('hex'),
            };
          }),
        ),
      ],
    );
  }

  // The profile reads through a connection of its own, after the worker's pool has closed and flushed its
  // statistics; an idle connection flushes its table statistics within 10 s, so the seeding's are counted
  // before the reset, not in the worker's figures.
  const profilePool = statementProfileWanted() ? createPool(database.connectionString, log, 1) : null;
  if (profilePool) await new Promise((resolve) => setTimeout(resolve, 11_000));
  const finishProfile = profilePool ? await startStatementProfile(profilePool, profilePool, 'worker') : null;
  const boss = createBoss(database.connectionString, log, { max: 6 });
  await boss.start();
  await createQueues(boss, jobs);
  let stopProcessing = async () => {};
  let stopSequencing = async () => {};
  const workerSeconds = await timed('worker', async () => {
    stopProcessing = startEventProcessing({ pool, boss, log });
    // The worker numbers the changes the projection appends, as the worker role does.
    stopSequencing = startChangeSequencing({ pool, log });
    await startWorkers(
      {
        pool,
        reads: readsFromPrimary(pool),
        boss,
        log,
        config: Object.freeze({}) as never,
        now: () => new Date(),
      },
      jobs,
    );
    await untilProjected(pool, 100);
  });
  // Each delivery touches one payment (a refund, its payment's), whose state row the projection wrote:
  // all of them reconciled on their newest state.
  const payments = N - Math.floor(N / 5);
  const reconciledSeconds = await timed('reconciled', async () => {
    while (
      await pending(
        `select exists (select from payment_reconciliation_states where unreconciled_since is not null) as pending`,
      )
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
  });
  const failed = (await pool.query(`select count(*)::int as n from events where status = 'failed'`)).rows[0]
    .n;
  const changes = (await pool.query(`select count(*)::int as n from changes`)).rows[0].n;
  const baselineRate = N / baselineSeconds;
  const workerRate = N / workerSeconds;
  const endToEndRate = N / (workerSeconds + reconciledSeconds);
  process.stdout.write(
    `${N} deliveries of ${payments} payments (${CLIENTS} baseline clients), ${failed} failed, ${changes} changes appended\n` +
      `baseline INSERT … ON CONFLICT: ${baselineRate.toFixed(0)} rows/s\n` +
      `worker (claim loop):           ${workerRate.toFixed(0)} events/s, ratio ${(workerRate / baselineRate).toFixed(2)}\n` +
      `projected and reconciled:      ${endToEndRate.toFixed(0)} events/s, ratio ${(endToEndRate / baselineRate).toFixed(2)}` +
      ` (every payment reconciled ${reconciledSeconds.toFixed(1)} s after the last delivery was projected)\n`,
  );
  // The workers (reconcile-payments still runs after the last delivery is processed) use `pool`: a graceful
  // stop lets their jobs finish and closes pg-boss's own pool, and only then is `pool` closed.
  await stopProcessing();
  await stopSequencing();
  await boss.stop({ graceful: true, timeout: 20_000 });
  await endPool(pool);
  await finishProfile?.(N);
  if (profilePool) await endPool(profilePool);
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
