import { chmod, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { EmbeddedDatabase } from '../../src/db/embedded.ts';
import { freePort } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/logger.ts';
import { release } from '../../src/processes/release.ts';
import {
  chownTree,
  dataDirectoryOwner,
  postgresBinDir,
  startPostgresFromBinaries,
  startPostgresServer,
} from './postgresBinaries.ts';
import { postgresScratchParent } from './scratchDir.ts';

export type PrimaryWithStandby = {
  /** The migrated `tally` database on the primary, and the same database on its hot standby. */
  primaryUrl: string;
  standbyUrl: string;
  stopStandby: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * A primary and a streaming hot standby of it, from the embedded Postgres binaries (which have no
 * pg_basebackup): a fresh primary is migrated and stopped, its data directory copied, and the copy started with
 * `standby.signal` and a `primary_conninfo`, on a port of its own. The shared test server is left alone.
 */
export async function startPrimaryWithStandby(): Promise<PrimaryWithStandby> {
  const binDir = await postgresBinDir();
  const workDir = await mkdtemp(path.join(await postgresScratchParent(), 'tally-standby-'));
  // Postgres runs as the `postgres` user when the tests run as root: it must be able to reach the directory.
  await chmod(workDir, 0o777);
  let primary: EmbeddedDatabase = await startPostgresFromBinaries(binDir, workDir);
  const serverUrl = primary.connectionString.replace(/\/postgres$/, '');
  const primaryPort = Number(new URL(serverUrl).port);
  const admin = new pg.Client({ connectionString: primary.connectionString });
  await admin.connect();
  await admin.query('create database tally');
  await admin.end();
  await release(`${serverUrl}/tally`, createLogger('warn'));
  await primary.stop();

  // A cleanly stopped primary's directory is a consistent copy: the standby starts from it and streams the rest.
  const primaryDir = path.join(workDir, 'postgres');
  const standbyDir = path.join(workDir, 'standby');
  await cp(primaryDir, standbyDir, { recursive: true, preserveTimestamps: true });
  await writeFile(path.join(standbyDir, 'standby.signal'), '');
  await writeFile(
    path.join(standbyDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=tally password=tally application_name=tally-test-standby'\n`,
    { flag: 'a' },
  );
  const owner = await dataDirectoryOwner();
  if (owner.uid !== undefined && owner.gid !== undefined) await chownTree(standbyDir, owner.uid, owner.gid);

  primary = await startPostgresServer(binDir, primaryDir, primaryPort);
  const standby = await startPostgresServer(binDir, standbyDir, await freePort());
  let standbyRunning = true;
  const stopStandby = async () => {
    if (!standbyRunning) return;
    standbyRunning = false;
    await standby.stop();
  };
  return {
    primaryUrl: `${serverUrl}/tally`,
    standbyUrl: standby.connectionString.replace(/\/postgres$/, '/tally'),
    stopStandby,
    close: async () => {
      await stopStandby();
      await primary.stop();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
