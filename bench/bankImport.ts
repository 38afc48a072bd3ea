// npm run bench:bank-import [-- MEGABYTES]: a generated CSV bank statement of 50 MB (default) sent twice to
// POST /api/bank-statements of the real app (the web role's server, its timeouts included) on an embedded
// Postgres, streamed from disk. Prints each import's time and answer, and this process's peak RSS (server
// and client both) next to its RSS before: the file is streamed, so the peak stays far below the file's size.
// The second import of the same file adds nothing.
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createApp } from '../src/api/app.ts';
import { createMetrics } from '../src/api/metrics.ts';
import { closeServer, serve } from '../src/api/serve.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, useBigintParser } from '../src/db/pool.ts';
import { readsFromPrimary } from '../src/db/readPool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { createBoss } from '../src/queue/boss.ts';
import { countArgument, endPool, sampleRss, timed } from './measure.ts';

useBigintParser();

const MEGABYTES = countArgument('MEGABYTES', 50);
const TOKEN = 'bench-admin-token-0123456789';
const log = createLogger('warn');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function writeStatement(file: string): Promise<number> {
  const out = createWriteStream(file);
  out.write('Value Date,Description,Reference,Amount,Currency\n');
  let lines = 0;
  while (out.bytesWritten + out.writableLength < MEGABYTES * 1024 * 1024) {
    lines += 1;
    const day = `2026-${String(1 + (lines % 12)).padStart(2, '0')}-${String(1 + (lines % 28)).padStart(2, '0')}`;
    const cents = (lines * 7919) % 10_000_000;
    const whole = Math.trunc(cents / 100).toLocaleString('en-US');
    const amount = `${lines % 5 === 0 ? '-' : ''}${whole}.${String(cents % 100).padStart(2, '0')}`;
    // One line in a hundred is a provider payout (no payout exists here: each is a finding); the rest card
    // settlements, transfers and fees of a busy account.
    const description =
      lines % 100 === 0 ? `JUSTIFI PAYOUT po_${lines}` : `CARD SETTLEMENT BATCH ${lines} STORE 0042`;
    const line = `${day},"${description} transfer to operating account",REF${lines},"${amount}",USD\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return lines;
}

function post(port: number, file: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        port,
        method: 'POST',
        path: '/api/bank-statements?format=csv',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/csv' },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    pipeline(createReadStream(file), req).catch(reject);
  });
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-bank-'));
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(dataDir, log);
try {
  await release(database.connectionString, log);
  const file = path.join(dataDir, 'statement.csv');
  const [lines] = await timed('generate the statement', () => writeStatement(file));
  process.stderr.write(`statement: ${mb((await stat(file)).size)}, ${lines} lines\n`);
  const config = loadConfig({
    DATABASE_URL: database.connectionString,
    API_TOKEN: TOKEN,
    WEBHOOK_SECRETS: 'whsec_bench_0123456789_abcdefghijkl',
  });
  const pool = createPool(database.connectionString, log);
  const boss = createBoss(database.connectionString, log);
  await boss.start();
  const app = createApp({
    config,
    pool,
    reads: readsFromPrimary(pool),
    boss,
    log,
    metrics: createMetrics(pool, boss),
    jobs: [],
    now: () => new Date(),
  });
  const server = await serve(app, 0);
  const { port } = server.address() as AddressInfo;
  for (const run of ['first import', 're-import']) {
    const rss = sampleRss();
    const before = process.memoryUsage().rss;
    const [answer] = await timed(run, () => post(port, file));
    rss.stop();
    process.stdout.write(
      `${run}: ${answer.status} ${answer.body}; RSS before ${mb(before)}, peak ${mb(rss.peak())}\n`,
    );
  }
  await closeServer(server);
  await boss.stop({ graceful: false });
  await endPool(pool);
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
