import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LOCAL_DATABASE_FILE } from '../cli/database.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { createLogger, type Logger } from '../logger.ts';
import { startClock } from './clock.ts';
import { release } from './release.ts';
import { loadConfigOrExit, onShutdown, openRuntime } from './runtime.ts';
import { startWeb } from './web.ts';
import { startWorker } from './worker.ts';

const DATA_DIR = path.join(import.meta.dirname, '..', '..', '.data');

/** `npm start`: every role in one process, on an embedded Postgres when DATABASE_URL is unset. */
async function main() {
  const env = { ...process.env };
  const embedded = !env.DATABASE_URL;
  if (embedded && !env.WEBHOOK_SECRETS) env.WEBHOOK_SECRETS = await developmentSecret();
  const config = loadConfigOrExit(env);
  const log = createLogger(config.LOG_LEVEL);
  if (embedded && !process.env.WEBHOOK_SECRETS) {
    log.warn(
      { file: path.join(DATA_DIR, 'webhook-secret') },
      'WEBHOOK_SECRETS unset: using the local development secret',
    );
  }

  const database = embedded ? await startEmbeddedPostgres(DATA_DIR, log) : null;
  const connectionString = database?.connectionString ?? (config.DATABASE_URL as string);
  // The CLI (export, replay…) finds the embedded database, on its random port, through this file.
  if (database) await writeFile(LOCAL_DATABASE_FILE, `${connectionString}\n`, { mode: 0o600 });
  await release(connectionString, log);
  const runtime = await openRuntime(config, log, connectionString);
  const stopWeb = await startWeb(runtime);
  await startWorker(runtime);
  const stopClock = startClock(runtime);
  onShutdown(log, [
    stopWeb,
    stopClock,
    runtime.close,
    async () => {
      if (!database) return;
      await rm(LOCAL_DATABASE_FILE, { force: true });
      await database.stop();
    },
  ]);
}

// A random secret kept under .data/, so a local instance is never signed with a well-known value.
async function developmentSecret(): Promise<string> {
  const file = path.join(DATA_DIR, 'webhook-secret');
  const existing = await readFile(file, 'utf8').catch(() => null);
  if (existing?.trim()) return existing.trim();
  await mkdir(DATA_DIR, { recursive: true });
  const secret = randomBytes(24).toString('hex');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

await main().catch((err: unknown) => {
  (createLogger('info') as Logger).fatal(err, 'tally failed to start');
  process.exit(1);
});
