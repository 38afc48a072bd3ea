// Part of `npm run bench:year`: the daily report on a streaming hot standby of the year database against the
// same report on the primary (and on the day-only database), timed in alternation in the same run.
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type EmbeddedDatabase, freePort } from '../src/db/embedded.ts';
import type { Logger } from '../src/logger.ts';
import {
  chownTree,
  dataDirectoryOwner,
  postgresBinDir,
  startPostgresServer,
} from '../test/helpers/postgresBinaries.ts';
import { timeDailyReport } from './yearChecks.ts';

const ROUNDS = Number(process.env.BENCH_REPLICA_ROUNDS ?? 3);
const SLOT = 'bench_year_standby';
// What a base backup leaves out: the running server's own files, and WAL, which the standby streams instead.
const NOT_COPIED = new Set(['postmaster.pid', 'postmaster.opts', 'pg_wal', 'pg_replslot']);

type ReplicaComparison = {
  /** The database name on the primary whose report is compared (the standby holds every database). */
  yearUrl: string;
  equivalentUrl: string;
  /** The primary's data directory (the embedded server's `<dataDir>/postgres`). */
  primaryDataDir: string;
  day: string;
  log: Logger;
  out: (line: string) => void;
};

/**
 * Starts a hot standby of the running primary by an online base backup (pg_backup_start, a copy of the data
 * directory, pg_backup_stop's backup_label) with a replication slot holding the WAL it needs, then times the
 * daily report of `day` ROUNDS times on each of the day-only database, the primary and the standby, in turn.
 */
export async function compareReportOnReplica(options: ReplicaComparison): Promise<void> {
  const { yearUrl, equivalentUrl, day, log, out } = options;
  const workDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-standby-'));
  // Postgres runs as the `postgres` user when the bench runs as root: it must be able to reach the directory.
  await chmod(workDir, 0o777);
  let standby: EmbeddedDatabase | null = null;
  try {
    standby = await startStandby(yearUrl, options.primaryDataDir, workDir);
    const standbyUrl = new URL(standby.connectionString);
    standbyUrl.pathname = new URL(yearUrl).pathname;
    const started = performance.now();
    await waitForReplay(yearUrl, standbyUrl.toString());
    const caughtUp = (performance.now() - started) / 1000;
    // A first report on each warms its caches: the standby starts with empty shared buffers.
    for (const url of [equivalentUrl, yearUrl, standbyUrl.toString()]) await timeDailyReport(url, log, day);
    const times = { day: [] as number[], primary: [] as number[], replica: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      times.day.push(await timeDailyReport(equivalentUrl, log, day));
      times.primary.push(await timeDailyReport(yearUrl, log, day));
      times.replica.push(await timeDailyReport(standbyUrl.toString(), log, day));
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const seconds = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
    out(
      `replica: a hot standby of the year database (online base backup, streaming, caught up ${caughtUp.toFixed(1)} s after start); daily report of ${day}, ${ROUNDS} rounds after a warm-up`,
    );
    out(`  day only: ${seconds(times.day)} s`);
    out(`  primary:  ${seconds(times.primary)} s`);
    out(`  replica:  ${seconds(times.replica)} s`);
    const [dayOnly, primary, replica] = [mean(times.day), mean(times.primary), mean(times.replica)];
    out(
      `  replica/primary: ${(replica / primary).toFixed(2)}; year/day only: primary ${(primary / dayOnly).toFixed(2)}, replica ${(replica / dayOnly).toFixed(2)} (target ≤ 2)`,
    );
  } finally {
    await standby?.stop();
    await dropSlot(yearUrl);
    await rm(workDir, { recursive: true, force: true });
  }
}

async function startStandby(primaryUrl: string, primaryDataDir: string, workDir: string) {
  const standbyDir = path.join(workDir, 'standby');
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    // Reserved now, so the WAL written from the backup's start on stays until the standby has streamed it.
    await client.query('select pg_create_physical_replication_slot($1::text, true)', [SLOT]);
    await client.query(`select pg_backup_start('bench-year-standby', true)`);
    await cp(primaryDataDir, standbyDir, {
      recursive: true,
      filter: (source) => !NOT_COPIED.has(path.relative(primaryDataDir, source)),
    });
    const { rows } = await client.query<{ labelfile: string }>('select labelfile from pg_backup_stop(true)');
    await writeFile(path.join(standbyDir, 'backup_label'), rows[0]?.labelfile ?? '');
  } finally {
    await client.end();
  }
  await mkdir(path.join(standbyDir, 'pg_wal', 'archive_status'), { recursive: true });
  await mkdir(path.join(standbyDir, 'pg_replslot'));
  await writeFile(path.join(standbyDir, 'standby.signal'), '');
  const primaryPort = new URL(primaryUrl).port;
  await writeFile(
    path.join(standbyDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=tally password=tally application_name=tally-bench-standby'\nprimary_slot_name = '${SLOT}'\n`,
    { flag: 'a' },
  );
  const owner = await dataDirectoryOwner();
  if (owner.uid !== undefined && owner.gid !== undefined) await chownTree(standbyDir, owner.uid, owner.gid);
  return startPostgresServer(await postgresBinDir(), standbyDir, await freePort());
}

/** Waits until the standby has replayed the primary's WAL as of now (up to 10 minutes: a year's copy is large). */
async function waitForReplay(primaryUrl: string, standbyUrl: string): Promise<void> {
  const primary = new pg.Client({ connectionString: primaryUrl });
  const standby = new pg.Client({ connectionString: standbyUrl });
  await Promise.all([primary.connect(), standby.connect()]);
  try {
    const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
    for (let waited = 0; waited < 600_000; waited += 200) {
      const replayed = await standby.query<{ caught_up: boolean }>(
        'select coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) as caught_up',
        [rows[0]?.lsn],
      );
      if (replayed.rows[0]?.caught_up) return;
      await sleep(200);
    }
    throw new Error('the standby did not catch up with the primary within 10 minutes');
  } finally {
    await Promise.all([primary.end(), standby.end()]);
  }
}

// The primary's WAL sender may outlive the stopped standby by a moment, and an active slot cannot be dropped.
async function dropSlot(primaryUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    for (let waited = 0; waited < 10_000; waited += 200) {
      const { rows } = await client.query<{ active: boolean }>(
        'select active from pg_replication_slots where slot_name = $1::text',
        [SLOT],
      );
      if (rows.length === 0) return;
      if (!rows[0]?.active) break;
      await sleep(200);
    }
    await client.query('select pg_drop_replication_slot($1::text)', [SLOT]);
  } finally {
    await client.end();
  }
}
