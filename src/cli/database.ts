import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';

export const LOCAL_DATABASE_FILE = path.join(import.meta.dirname, '..', '..', '.data', 'database-url');

/** DATABASE_URL, or the embedded database of a local `npm start` that is running now. */
export async function resolveDatabaseUrl(
  config: Pick<Config, 'DATABASE_URL'>,
  localDatabaseFile = LOCAL_DATABASE_FILE,
): Promise<string> {
  const configured = config.DATABASE_URL?.trim();
  if (configured) return configured;
  // npm start writes this file once its embedded Postgres is up, on a random port, and removes it on stop.
  const local = (await readFile(localDatabaseFile, 'utf8').catch(() => '')).trim();
  if (local) return local;
  throw new Error(
    'DATABASE_URL is not set and no local `npm start` is running: set DATABASE_URL or start Tally',
  );
}
