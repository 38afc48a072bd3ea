import { readdir, readFile, rm, stat, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

// A run's cluster holds a clone of the template per test file, plus WAL: 2.5 GB at its largest.
const MEMORY_NEEDED_BYTES = 4 * 1024 ** 3;
// The clusters the tests make (globalSetup.ts, standby.ts), by the prefix of their directory's name.
const CLUSTER_PREFIXES = ['tally-test-', 'tally-standby-'];
// No run lasts this long: an older cluster whose server is not running was left by a run that was killed.
const STALE_AFTER_MS = 60 * 60 * 1000;

/**
 * Where the tests' Postgres data directories go: memory (/dev/shm) when it has 4 GB free, else the system's
 * temporary directory. Nothing in them outlives the run, and every test file creates a database, truncates
 * tables and makes temporary ones, each a burst of new files: on a disk that cost most of Postgres's CPU time
 * (ext4, for one, searches past every recently deleted inode before it allocates one).
 */
export async function postgresScratchParent(): Promise<string> {
  const memory = await statfs('/dev/shm').catch(() => null);
  return memory !== null && memory.bavail * memory.bsize >= MEMORY_NEEDED_BYTES ? '/dev/shm' : tmpdir();
}

/**
 * Removes the clusters that runs killed before their teardown left in `parent`: in memory, each would hold up
 * to 2.5 GB of RAM until the machine restarts. Only those over an hour old whose postmaster is not running
 * (its `postmaster.pid`, in the directory or one below, names no live process): a run going on keeps its own.
 */
export async function removeStaleClusters(parent: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [])) {
    if (!CLUSTER_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const dir = path.join(parent, name);
    const made = await stat(dir).catch(() => null);
    if (made === null || now - made.mtimeMs < STALE_AFTER_MS || (await serverRunsIn(dir))) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

async function serverRunsIn(dir: string): Promise<boolean> {
  const below = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const candidates = [
    dir,
    ...below.filter((entry) => entry.isDirectory()).map((entry) => path.join(dir, entry.name)),
  ];
  for (const candidate of candidates) {
    const pidFile = await readFile(path.join(candidate, 'postmaster.pid'), 'utf8').catch(() => null);
    const pid = Number(pidFile?.split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0 && processExists(pid)) return true;
  }
  return false;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user (Postgres runs as `postgres` under root).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
