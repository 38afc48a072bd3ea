import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jobs } from '../jobs/index.ts';
import { createApp } from '../src/api/app.ts';
import { createMetrics } from '../src/api/metrics.ts';
import { closeServer, serve } from '../src/api/serve.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { openRuntime } from '../src/processes/runtime.ts';
import { startWorker } from '../src/processes/worker.ts';

export type Target = { url: string; secret: string; token: string };

/** Tally in this process on a throwaway embedded Postgres, with a random secret and token. */
export async function startOwnTally(): Promise<{ target: Target; stop: () => Promise<void> }> {
  useBigintParser();
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-check-'));
  // Postgres runs as the `postgres` user when this runs as root: it must be able to reach the directory.
  await chmod(dir, 0o777);
  // The instance's own warnings (quarantines, failed jobs) would drown the report: they go to a file.
  const logFile = createWriteStream(path.join(dir, 'tally.log'));
  const log = createLogger('warn', logFile);
  const database = await startEmbeddedPostgres(dir, log).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  const removeDatabase = async () => {
    await database.stop();
    await new Promise((resolve) => logFile.end(resolve));
    await rm(dir, { recursive: true, force: true });
  };
  const secret = randomBytes(24).toString('hex');
  const token = randomBytes(24).toString('hex');
  const env = { DATABASE_URL: database.connectionString, WEBHOOK_SECRETS: secret, API_TOKEN: token };
  try {
    const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
    await release(database.connectionString, log);
    const runtime = await openRuntime(config, log, database.connectionString);
    const now = () => new Date();
    const app = createApp({ ...runtime, metrics: createMetrics(runtime.pool, runtime.boss), jobs, now });
    const stopWorker = await startWorker(runtime);
    const server = await serve(app, 0);
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stderr.write(`started a throwaway Tally on port ${port}\n`);
    // Called from the normal end and from a signal handler: the teardown runs once, both wait for it.
    let stopping: Promise<void> | null = null;
    const stop = () => {
      stopping ??= (async () => {
        await closeServer(server);
        await stopWorker();
        await runtime.close();
        await removeDatabase();
      })();
      return stopping;
    };
    return { target: { url: `http://127.0.0.1:${port}`, secret, token }, stop };
  } catch (err) {
    await removeDatabase();
    throw err;
  }
}
