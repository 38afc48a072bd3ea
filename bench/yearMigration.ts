// Part of `npm run bench:year`: `release` applying a migration written the online way (a no-transaction
// migration building indexes on events and payments CONCURRENTLY) while the web role takes a fixed-rate load,
// against the same load with no migration running, in alternating chunks on the same web process.
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../src/db/embedded.ts';
import { NO_TRANSACTION_MARKER } from '../src/db/migrate.ts';
import type { Logger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { type Fixed, runFixedRate, startRole, stopRoles } from './ingestTopology.ts';

const RATE = Number(process.env.BENCH_MIGRATION_RATE ?? 200);
const CHUNK_SECONDS = Number(process.env.BENCH_MIGRATION_CHUNK_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_MIGRATION_ROUNDS ?? 5);
const REPOSITORY_MIGRATIONS = path.join(import.meta.dirname, '..', 'migrations');
// Past any real migration's number, so the repository's next migration never meets it; removed after each round.
const THROWAWAY_VERSION = 9001;
const THROWAWAY_FILE = `${THROWAWAY_VERSION}_bench_online_indexes.sql`;
const THROWAWAY_INDEXES = ['bench_events_account_received_idx', 'bench_payments_account_amount_idx'];
const THROWAWAY_SQL = `${NO_TRANSACTION_MARKER}
create index concurrently if not exists ${THROWAWAY_INDEXES[0]} on events (account_id, received_at);
create index concurrently if not exists ${THROWAWAY_INDEXES[1]} on payments (account_id, amount);
`;

/** The load generator's answer, with the failures `Fixed` leaves out and each request's timing. */
type Chunk = Fixed & { requests: number; errors: number; timeouts: number; timeline?: [number, number][] };
const failures = (chunk: Chunk) => chunk.non2xx + chunk.errors + chunk.timeouts;

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0;
}

/**
 * Runs ROUNDS rounds on the database at `connectionString`: a chunk of load with no migration, then chunks of
 * the same load for as long as `release` takes to apply the throwaway migration from a copy of the migrations
 * folder. The figure compared is the p99 of the requests sent while `release` ran (not of the whole chunks,
 * which would dilute it with the requests sent after it ended) against the p99 of the chunk without.
 * Between rounds the throwaway's indexes and its schema_migrations row are removed (not under load), so every
 * round builds them again and the database is left as the repository's migrations made it.
 */
export async function releaseUnderLoad(
  connectionString: string,
  log: Logger,
  secret: string,
  out: (line: string) => void,
): Promise<void> {
  const migrationsDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-migrations-'));
  for (const file of await readdir(REPOSITORY_MIGRATIONS))
    await copyFile(path.join(REPOSITORY_MIGRATIONS, file), path.join(migrationsDir, file));
  await writeFile(path.join(migrationsDir, THROWAWAY_FILE), THROWAWAY_SQL);
  const port = await freePort();
  const env = { DATABASE_URL: connectionString, WEBHOOK_SECRETS: secret, PORT: String(port) };
  const web = await startRole('src/processes/web.ts', env);
  const url = `http://127.0.0.1:${port}`;
  const load = { secret, seconds: CHUNK_SECONDS, connections: 16, requestsFile: '', postmasterPid: null };
  const chunk = async (timeline = false) => (await runFixedRate(url, load, RATE, timeline)) as Chunk;
  const baselines: number[] = [];
  const duringRelease: number[] = [];
  let failedDuring = 0;
  let failedWithout = 0;
  let sentDuring = 0;
  try {
    await chunk(); // warm-up: a freshly started web process answers slower until its code is optimised
    out(
      `migration: release of ${THROWAWAY_FILE} (no transaction, an index CONCURRENTLY on events and one on payments) while the web role takes ${RATE} req/s, ${ROUNDS} rounds of a ${CHUNK_SECONDS} s chunk without a migration, then chunks while release runs; compared: the p99 of the requests sent while release ran`,
    );
    for (let round = 1; round <= ROUNDS; round += 1) {
      const without = await chunk();
      baselines.push(without.latency.p99);
      failedWithout += failures(without);
      const roundDuring: Chunk[] = [];
      let migrating = true;
      const loadWhileMigrating = (async () => {
        while (migrating) roundDuring.push(await chunk(true));
      })();
      const startedAt = Date.now();
      let endedAt = Number.POSITIVE_INFINITY;
      const released = release(connectionString, log, { migrationsDir })
        .then(() => {
          endedAt = Date.now();
        })
        .finally(() => {
          migrating = false;
        });
      // Both awaited together: a failed release is the error reported, never an unawaited load's.
      await Promise.all([released, loadWhileMigrating]);
      const sent = roundDuring
        .flatMap((c) => c.timeline ?? [])
        .filter(([scheduledAt]) => scheduledAt >= startedAt && scheduledAt <= endedAt)
        .map(([, latency]) => latency);
      duringRelease.push(p99(sent));
      sentDuring += sent.length;
      const failed = roundDuring.reduce((sum, c) => sum + failures(c), 0);
      failedDuring += failed;
      out(
        `  round ${round}: without p99 ${without.latency.p99} ms, ${failures(without)} failed; release ${((endedAt - startedAt) / 1000).toFixed(1)} s, the ${sent.length} requests sent meanwhile p99 ${p99(sent).toFixed(1)} ms (${(p99(sent) / without.latency.p99).toFixed(2)}×), ${failed} failed in the ${roundDuring.length} chunks around it`,
      );
      await removeThrowaway(connectionString);
    }
  } finally {
    await stopRoles([web]);
    await rm(migrationsDir, { recursive: true, force: true });
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const worstRound = Math.max(...duringRelease.map((during, index) => during / (baselines[index] as number)));
  out(
    `  p99 during release/without (mean of the rounds' p99s): ${(mean(duringRelease) / mean(baselines)).toFixed(2)}, worst round ${worstRound.toFixed(2)} (target ≤ 2); failed requests: ${failedDuring} in the chunks around release (${sentDuring} sent while it ran; target 0), ${failedWithout} without`,
  );
}

// `drop index concurrently` takes no lock that blocks writes either; forgetting the row lets release apply it again.
async function removeThrowaway(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    for (const index of THROWAWAY_INDEXES) await client.query(`drop index concurrently if exists ${index}`);
    await client.query('delete from schema_migrations where version = $1::integer', [THROWAWAY_VERSION]);
  } finally {
    await client.end();
  }
}
