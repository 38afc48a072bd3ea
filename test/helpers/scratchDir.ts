import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';

// A run's cluster holds a clone of the template per test file, plus WAL: 2.5 GB at its largest.
const MEMORY_NEEDED_BYTES = 4 * 1024 ** 3;

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
