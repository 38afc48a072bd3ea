import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const LOCAL_DATABASE_FILE = path.join(import.meta.dirname, '..', '..', '.data', 'database-url');

/** DATABASE_URL, or the embedded database of a local `npm start` that is running now. */
export async function resolveDatabaseUrl(): Promise<string> {
  const configured = process.env.DATABASE_URL?.trim();
  if (configured) return configured;
  const local = (await readFile(LOCAL_DATABASE_FILE, 'utf8').catch(() => '')).trim();
  if (local) return local;
  throw new Error(
    'DATABASE_URL is not set and no local `npm start` is running: set DATABASE_URL or start Tally',
  );
}
