// npm run bench:sizing [-- SECONDS]: the figures of the sizing guide (docs/operations.md#sizing). Runs web,
// worker and clock as separate processes on a fresh embedded Postgres, puts wrk's full load (32 connections,
// signed ~1.5 KB payment deliveries, 10 % redeliveries) on the web process for SECONDS (default 20), waits until
// every delivery is projected and every payment reconciled, then prints per process its peak memory and
// database connections, the rates, and the database bytes per stored delivery and per payment.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { freshDatabase, startRole, stopRoles } from './ingestTopology.ts';
import { ensureWrk, runWrk, writeSignedRequests } from './ingestWrk.ts';
import { countArgument, endPool } from './measure.ts';

useBigintParser();

const SECONDS = countArgument('SECONDS', 20);
const CONNECTIONS = 32;
const ROLES = ['web', 'worker', 'clock'] as const;
const SECRET = 'sizing-bench-secret-0123456789abcdef';
const log = createLogger('warn');

/** The process's resident memory now and at its peak (VmRSS, VmHWM), in MB. */
function memoryOf(child: ChildProcess): { now: number; peak: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024;
  return { now: field('VmRSS'), peak: field('VmHWM') };
}

const RAW_LOG = 'raw log (events)';
const PROJECTIONS = 'projections, findings and the rest';

/** Bytes on disk (tables, indexes, TOAST) of the raw log, of everything else of Tally's, and of pg-boss. */
async function databaseSizes(db: pg.Pool): Promise<{ part: string; bytes: number }[]> {
  const { rows } = await db.query<{ part: string; bytes: number }>(
    `select case when n.nspname = 'pgboss' then 'jobs (pg-boss)'
                 when c.relname = 'events' then $1
                 else $2 end as part,
            sum(pg_total_relation_size(c.oid))::float8 as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'm') and n.nspname in ('public', 'pgboss')
      group by 1 order by 1`,
    [RAW_LOG, PROJECTIONS],
  );
  return rows;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-sizing-'));
// Postgres runs as the `postgres` user when the bench runs as root: it must be able to reach the directory.
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(dataDir, log);
const admin = new pg.Pool({ connectionString: database.connectionString, max: 1 });
const children = new Map<string, ChildProcess>();
try {
  ensureWrk();
  const url = await freshDatabase(admin, database.connectionString, 'tally_sizing', log);
  const port = await freePort();
  const probe = new pg.Pool({ connectionString: url, max: 1 });
  for (const role of ROLES) {
    // Each process names itself to Postgres, so its connections can be counted apart.
    const named = new URL(url);
    named.searchParams.set('application_name', `tally-${role}`);
    const env = { DATABASE_URL: named.toString(), WEBHOOK_SECRETS: SECRET, PORT: String(port) };
    children.set(role, await startRole(`src/processes/${role}.ts`, env));
  }
  const empty = await databaseSizes(probe);
  const idle = Object.fromEntries(ROLES.map((role) => [role, memoryOf(children.get(role) as ChildProcess)]));
  const connections = Object.fromEntries(ROLES.map((role) => [role, 0]));
  const countConnections = async () => {
    const { rows } = await probe.query<{ name: string; count: number }>(
      `select application_name as name, count(*)::int as count from pg_stat_activity
        where application_name like 'tally-%' group by application_name`,
    );
    for (const { name, count } of rows) {
      const role = name.slice('tally-'.length);
      connections[role] = Math.max(connections[role] ?? 0, count);
    }
  };
  const sampler = setInterval(() => void countConnections().catch(() => {}), 250);

  const requestsFile = path.join(dataDir, 'requests.tsv');
  await writeSignedRequests(requestsFile, SECRET, 200_000);
  process.stderr.write(`web + worker + clock: ${SECONDS} s at ${CONNECTIONS} connections…\n`);
  const started = Date.now();
  const load = await runWrk(`http://127.0.0.1:${port}`, requestsFile, SECONDS, CONNECTIONS);
  for (;;) {
    const { rows } = await probe.query<{ waiting: number; unreconciled: number }>(
      `select (select count(*) from events where status = 'received')::int as waiting,
              (select count(*) from payment_reconciliation_states where unreconciled_since is not null)::int
                as unreconciled`,
    );
    if (rows[0]?.waiting === 0 && rows[0]?.unreconciled === 0) break;
    if (Date.now() - started > (SECONDS + 300) * 1000)
      throw new Error('the worker did not catch up in 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const doneSeconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  await countConnections();
  const busy = Object.fromEntries(ROLES.map((role) => [role, memoryOf(children.get(role) as ChildProcess)]));

  await probe.query('vacuum analyze');
  const { rows: counts } = await probe.query<{ deliveries: number; payments: number; bodies: number }>(
    `select (select count(*) from events)::int as deliveries, (select count(*) from payments)::int as payments,
            (select sum(octet_length(raw_body)) from events)::float8 as bodies`,
  );
  const { deliveries, payments, bodies } = counts[0] as {
    deliveries: number;
    payments: number;
    bodies: number;
  };
  const grown = (await databaseSizes(probe)).map((row) => ({
    ...row,
    bytes: row.bytes - (empty.find((before) => before.part === row.part)?.bytes ?? 0),
  }));
  const grownBy = (part: string) => grown.find((row) => row.part === part)?.bytes ?? 0;
  // The same data compacted: what it takes once autovacuum has made the dead row versions (each processed
  // delivery's earlier one) reusable and new rows have filled them.
  await probe.query('vacuum full');
  const compacted = await databaseSizes(probe);
  const compactedBy = (part: string) =>
    (compacted.find((row) => row.part === part)?.bytes ?? 0) -
    (empty.find((row) => row.part === part)?.bytes ?? 0);
  const acked = load.requests - load.non2xx;
  const perSecond = (count: number, seconds: number) => Math.round(count / seconds);
  console.log(
    JSON.stringify(
      {
        load: { seconds: load.seconds, connections: CONNECTIONS, acknowledged: acked, not_2xx: load.non2xx },
        acknowledged_per_second: perSecond(acked, load.seconds),
        latency_ms: load.latencyMs,
        projected_and_reconciled_per_second: perSecond(deliveries, doneSeconds),
        stored: { deliveries, payments, body_bytes_per_delivery: Math.round(bodies / deliveries) },
        // What the load added to the empty, migrated database.
        database_bytes_added: Object.fromEntries(grown.map((row) => [row.part, Math.round(row.bytes)])),
        raw_log_bytes_per_delivery: Math.round(grownBy(RAW_LOG) / deliveries),
        projection_bytes_per_payment: Math.round(grownBy(PROJECTIONS) / payments),
        compacted: {
          raw_log_bytes_per_delivery: Math.round(compactedBy(RAW_LOG) / deliveries),
          projection_bytes_per_payment: Math.round(compactedBy(PROJECTIONS) / payments),
        },
        memory_mb: Object.fromEntries(
          ROLES.map((role) => [
            role,
            { idle: Math.round(idle[role]?.now ?? 0), peak: Math.round(busy[role]?.peak ?? 0) },
          ]),
        ),
        peak_connections: connections,
      },
      null,
      2,
    ),
  );
  await endPool(probe);
} finally {
  await stopRoles([...children.values()]);
  await endPool(admin);
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
