import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { useBigintParser } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { release } from '../../src/processes/release.ts';
import { TEST_LOG_DIR } from './logScan.ts';
import { startPostgresFromBinaries } from './postgresBinaries.ts';
import { postgresScratchParent, removeStaleClusters } from './scratchDir.ts';

export const TEMPLATE_DATABASE = 'tally_template';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    logDir: string;
  }
}

/** One real Postgres for the whole run; a migrated template database that every test file clones. */
export default async function setup(project: TestProject) {
  useBigintParser();
  const log = createLogger('warn');
  const scratchParent = await postgresScratchParent();
  await removeStaleClusters(scratchParent);
  const dataDir = await mkdtemp(path.join(scratchParent, 'tally-test-'));
  // Postgres runs as the `postgres` user when the tests run as root: it must be able to reach the directory.
  await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
  // `npm run test:postgres` points this at each supported major's binaries in turn.
  const binDir = process.env.TALLY_TEST_POSTGRES_BIN;
  // The server lives for one run and nothing in it must survive a crash of the machine: without fsync, each
  // commit and each file's `create database` stop waiting on the disk (a crash of Postgres alone loses nothing).
  // The tests reach it over a Unix socket in its data directory, which costs less CPU a round trip than the
  // loopback's TCP (about 3% of the run's CPU in three interleaved pairs). `npm run test:postgres` stays on TCP.
  const database = binDir
    ? await startPostgresFromBinaries(binDir, dataDir)
    : await startEmbeddedPostgres(dataDir, log, ['fsync=off', `unix_socket_directories=${dataDir}`]);
  const admin = new pg.Client({ connectionString: database.connectionString });
  await admin.connect();
  if (binDir) {
    const { rows } = await admin.query<{ server_version: string }>('show server_version');
    console.info(`tests run on Postgres ${rows[0]?.server_version} from ${binDir}`);
  }
  // The run opens about 1,600 connections (each file's pools, pg-boss, the CLI and the roles it starts): a
  // password stored with one SCRAM iteration instead of 4,096 spares both sides about 4 ms of CPU on each.
  // Postgres 16 has the setting; on older servers the password keeps its iterations.
  const { rows } = await admin.query(`select current_setting('scram_iterations', true) as iterations`);
  if (rows[0]?.iterations !== null) {
    await admin.query('set scram_iterations = 1');
    const password = decodeURIComponent(new URL(database.connectionString).password);
    await admin.query(`alter role current_user password ${admin.escapeLiteral(password)}`);
  }
  await admin.query(`create database ${TEMPLATE_DATABASE}`);
  await admin.end();
  // The close's days kept in UTC, the default BUSINESS_TIME_ZONE: a test in another zone reads the rows.
  await release(database.connectionString.replace(/\/postgres$/, `/${TEMPLATE_DATABASE}`), log, {
    businessTimeZone: 'UTC',
  });
  const serverUrl = database.connectionString.replace(/\/postgres$/, '');
  // pg reads a host that is a path (percent-encoded in the URL) as the directory of the server's socket.
  project.provide(
    'serverUrl',
    binDir ? serverUrl : serverUrl.replace('127.0.0.1', encodeURIComponent(dataDir)),
  );
  // Emptied at the start of each run; scanned by `npm test` once vitest is done (see logScan.ts).
  await rm(TEST_LOG_DIR, { recursive: true, force: true });
  await mkdir(TEST_LOG_DIR, { recursive: true });
  project.provide('logDir', TEST_LOG_DIR);
  return async () => {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
