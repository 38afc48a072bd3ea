import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LOCAL_DATABASE_FILE } from '../cli/database.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { useBigintParser } from '../db/pool.ts';
import { createLogger } from '../logger.ts';
import { startClock } from './clock.ts';
import { release } from './release.ts';
import { exitWithError, loadConfigOrExit, onShutdown, openRuntime } from './runtime.ts';
import { startWeb } from './web.ts';
import { startWorker } from './worker.ts';

const DATA_DIR = path.join(import.meta.dirname, '..', '..', '.data');

/** `npm start`: every role in one process, on an embedded Postgres when DATABASE_URL is unset. */
async function main() {
  useBigintParser();
  let config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  const embedded = !config.DATABASE_URL;
  // The local run on its embedded database is development: the console signs in over http://localhost.
  if (embedded && !config.NODE_ENV) config = Object.freeze({ ...config, NODE_ENV: 'development' });
  if (embedded && !config.WEBHOOK_SECRETS) {
    const file = path.join(DATA_DIR, 'webhook-secret');
    config = Object.freeze({ ...config, WEBHOOK_SECRETS: [await developmentSecret(file)] });
    log.warn({ file }, 'WEBHOOK_SECRETS unset: using the local development secret');
  }
  // The console and the API need a token; a first local run makes one rather than leaving them off.
  const tokenFile = path.join(DATA_DIR, 'api-token');
  const localToken = !config.API_TOKEN && !config.API_TOKENS;
  if (localToken) config = Object.freeze({ ...config, API_TOKEN: await developmentSecret(tokenFile) });

  const database = embedded ? await startEmbeddedPostgres(DATA_DIR, log) : null;
  const connectionString = database?.connectionString ?? (config.DATABASE_URL as string);
  // The CLI (export, replay…) finds the embedded database, on its random port, through this file.
  if (database) await writeFile(LOCAL_DATABASE_FILE, `${connectionString}\n`, { mode: 0o600 });
  const stopDatabase = async () => {
    if (!database) return;
    await rm(LOCAL_DATABASE_FILE, { force: true });
    await database.stop();
  };
  // A refused migration (the embedded database was migrated by a newer checkout) must not leave Postgres running.
  await release(connectionString, log, { businessTimeZone: config.BUSINESS_TIME_ZONE }).catch(
    async (err: unknown) => {
      await stopDatabase().catch((stopErr: unknown) => log.error(stopErr, 'embedded postgres did not stop'));
      throw err;
    },
  );
  const runtime = await openRuntime(config, log, connectionString);
  const stopWeb = await startWeb(runtime);
  // The token itself never reaches a log line: the file holds it.
  const consoleUrl = `http://localhost:${config.PORT}/console`;
  if (localToken)
    log.info(
      { consoleUrl, tokenFile },
      `console at ${consoleUrl}: sign in with the admin token in ${tokenFile}`,
    );
  else log.info({ consoleUrl }, `console at ${consoleUrl}`);
  const stopWorker = await startWorker(runtime);
  const stopClock = startClock(runtime);
  onShutdown(log, [stopWeb, stopClock, stopWorker, runtime.close, stopDatabase]);
}

// A random secret kept under .data/ (webhook secret, admin token), so a local instance never uses a well-known value.
async function developmentSecret(file: string): Promise<string> {
  const existing = await readFile(file, 'utf8').catch(() => null);
  if (existing?.trim()) return existing.trim();
  await mkdir(DATA_DIR, { recursive: true });
  const secret = randomBytes(24).toString('hex');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

// A database migrated past this code stops here too, exiting 1 with the migrations it does not know.
await main().catch((err: unknown) => exitWithError(createLogger('info'), err, 'tally failed to start'));
