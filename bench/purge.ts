// npm run bench:purge [-- DELIVERIES]: the retention purge of 1,000,000 (default) old processed deliveries
// (~1 KB bodies, generated in Postgres) while the web role takes a fixed-rate load of signed deliveries.
// Prints the purge's time and rate, and the ingest latency during the purge against a same-run baseline:
// the same load, on the same database, before and after the purge (ratios against their mean; p50 and p99
// of several chunks are their requests-weighted means, each chunk also printed).
//   BENCH_RATE (default 200 req/s), BENCH_CHUNK_SECONDS (default 15): the load, run in chunks until the
//   purge ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, useBigintParser } from '../src/db/pool.ts';
import { DAY_MS } from '../src/domain/days.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { purgeBodies } from '../src/retention/purgeBodies.ts';
import { countArgument, timed } from './measure.ts';
import { purgePacingStats } from './purgePacingStats.ts';

useBigintParser();

const DELIVERIES = countArgument('DELIVERIES', 1_000_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const CHUNK_SECONDS = Number(process.env.BENCH_CHUNK_SECONDS ?? 15);
const CONNECTIONS = 16;
const SECRET = 'whsec_bench_purge_0123456789_abcdef';
const log = createLogger('warn');

type Load = { requests: number; non2xx: number; latency: { p50: number; p99: number; max: number } };

function runLoad(url: string, seconds: number): Promise<Load> {
  return new Promise((resolve, reject) => {
    const args = ['bench/ingestLoad.ts', url, SECRET, String(seconds), String(CONNECTIONS), String(RATE)];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}`)),
    );
  });
}

function startWeb(connectionString: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['src/processes/web.ts'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: connectionString,
      WEBHOOK_SECRETS: SECRET,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"web listening"')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`web exited ${code}`)));
  });
}

// Chunks of load merged: requests and non-2xx summed, p50 and p99 the requests-weighted means of the
// chunks', max the worst.
function merge(loads: Load[]): Load {
  const requests = loads.reduce((sum, load) => sum + load.requests, 0);
  const mean = (of: (load: Load) => number) =>
    loads.reduce((sum, load) => sum + of(load) * load.requests, 0) / Math.max(requests, 1);
  return {
    requests,
    non2xx: loads.reduce((sum, load) => sum + load.non2xx, 0),
    latency: {
      p50: mean((load) => load.latency.p50),
      p99: mean((load) => load.latency.p99),
      max: Math.max(...loads.map((load) => load.latency.max)),
    },
  };
}

const describeLoad = (load: Load) =>
  `${load.requests} requests, ${load.non2xx} non-2xx, p50 ${load.latency.p50.toFixed(1)} ms, p99 ${load.latency.p99.toFixed(1)} ms, max ${load.latency.max} ms`;

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-purge-'));
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(dataDir, log);
let web: ChildProcess | null = null;
try {
  await release(database.connectionString, log);
  const loader = new pg.Pool({ connectionString: database.connectionString, max: 1 });
  await timed(`generate ${DELIVERIES} processed deliveries received 100 days ago`, async () => {
    // One statement per 100,000 rows: a single one would hold a transaction the size of the table.
    for (let from = 1; from <= DELIVERIES; from += 100_000) {
      const to = Math.min(from + 99_999, DELIVERIES);
      await loader.query(
        `insert into events (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, status,
                             received_at, processed_at)
         select 'evt_old_' || g, 'payment.succeeded', 'acc_bench', 'live',
                '{"justifi-timestamp":"1700000000","justifi-signature":"00"}', convert_to(b.raw, 'UTF8'),
                sha256(convert_to(b.raw, 'UTF8')), 'processed', ts, ts
           from generate_series($1::int, $2::int) g,
                lateral (select now() - interval '100 days' + g * interval '1 millisecond' as ts) t,
                lateral (select json_build_object('id', 'evt_old_' || g, 'event_name', 'payment.succeeded',
                          'data', json_build_object('id', 'py_old_' || g, 'amount', 1000 + g % 9000,
                          'currency', 'usd', 'status', 'succeeded', 'metadata', repeat('x', 850)))::text as raw) b`,
        [from, to],
      );
    }
    await loader.query('analyze events');
    await loader.end();
  });

  // A free port, so two checkouts running the bench at once do not collide.
  const port = await freePort();
  web = await startWeb(database.connectionString, port);
  const url = `http://127.0.0.1:${port}`;
  await runLoad(url, 3); // warm-up
  const before = await timed('baseline load before the purge', () => runLoad(url, 2 * CHUNK_SECONDS));
  const pool = createPool(database.connectionString, log, 2);
  const during: Load[] = [];
  let purging = true;
  const loadWhilePurging = (async () => {
    while (purging) during.push(await runLoad(url, CHUNK_SECONDS));
  })();
  const pacing = purgePacingStats();
  const [purged, purgeSeconds] = await timed('purge', async () => {
    const result = await purgeBodies(pool, {
      cutoff: new Date(Date.now() - 30 * DAY_MS),
      now: () => new Date(),
      onBatch: (_done, batch) => pacing.record(batch),
    });
    purging = false;
    return result;
  });
  await loadWhilePurging;
  await pool.end();
  const after = await timed('baseline load after the purge', () => runLoad(url, 2 * CHUNK_SECONDS));

  const base = merge([before[0], after[0]]);
  const loaded = merge(during);
  process.stdout.write(
    `purged the bodies of ${purged.events} deliveries in ${purgeSeconds.toFixed(1)} s (${Math.round(purged.events / purgeSeconds)} deliveries/s)\n` +
      `  paced: ${pacing.describe()}\n` +
      `ingest at ${RATE} req/s, ${CONNECTIONS} connections:\n` +
      `  baseline before: ${describeLoad(before[0])}\n` +
      `  baseline after:  ${describeLoad(after[0])}\n` +
      `  during purge:    ${describeLoad(loaded)} (${during.length} chunks of ${CHUNK_SECONDS} s)\n` +
      during.map((chunk, index) => `    chunk ${index + 1}: ${describeLoad(chunk)}\n`).join('') +
      `  ratio to the baselines' mean: p50 ${(loaded.latency.p50 / base.latency.p50).toFixed(2)}, p99 ${(loaded.latency.p99 / base.latency.p99).toFixed(2)}, worst chunk's p99 ${(Math.max(...during.map((load) => load.latency.p99)) / base.latency.p99).toFixed(2)}\n`,
  );
} finally {
  if (web && web.exitCode === null) {
    const exited = new Promise((resolve) => web?.once('exit', resolve));
    web.kill('SIGTERM');
    await exited;
  }
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
