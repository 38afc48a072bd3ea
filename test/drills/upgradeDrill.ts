import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type EmbeddedDatabase, freePort, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/logger.ts';
import { scanLogs } from '../helpers/logScan.ts';
import { checkOutPreviousRelease } from './upgrade/previousCheckout.ts';
import { findPreviousRelease, git, type PreviousRelease } from './upgrade/previousRelease.ts';
import {
  hasLogged,
  logEntries,
  runToEnd,
  startTallyProcess,
  stopGracefully,
  type TallyProcess,
  waitUntilReady,
  webIsReady,
} from './upgrade/tallyProcess.ts';
import { checkAfterUpgrade, percentiles, readStatus, waitForCatchUp } from './upgrade/upgradeChecks.ts';
import { startWebhookLoad } from './upgrade/webhookLoad.ts';

// `npm run drill:upgrade [-- --from <commit>]`: the previous release's web and worker under webhook load,
// this checkout's release applied while they run, then web and worker rolled over one process at a time.
const REPO = path.resolve(import.meta.dirname, '..', '..');
const WORK_DIR = path.join(REPO, '.cache', 'upgrade-drill');
// Every process's log, kept after the run and scanned at its end for secrets and card numbers.
const LOG_DIR = path.join(WORK_DIR, 'logs');
// Both in the log scan's list (test/helpers/logScan.ts): neither may reach a log line of either release.
const SECRET = 'whsec_process_test_0123456789_abcd';
const TOKEN = 'test-api-token-0123456789';
const DELIVERIES_PER_SECOND = 100;
// How long each stage runs under load: the old release alone, old code on the new schema, both webs (or
// both workers) at once during a roll, and the new release alone.
const STAGE_MS = { oldAlone: 10_000, afterRelease: 5_000, bothAtOnce: 5_000, newAlone: 10_000 };
const DRAIN_TIMEOUT_MS = 120_000;

const started = Date.now();
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const say = (text: string) =>
  process.stdout.write(`[${seconds(Date.now() - started).padStart(6)} s] ${text}\n`);

async function previousRelease(currentVersion: string): Promise<PreviousRelease> {
  const from = process.argv.indexOf('--from');
  if (from === -1) return findPreviousRelease(REPO, currentVersion);
  const commit = (await git(REPO, ['rev-parse', '--verify', `${process.argv[from + 1]}^{commit}`])).trim();
  const packageJson = JSON.parse(await git(REPO, ['show', `${commit}:package.json`])) as { version: string };
  const [subject = '', date = ''] = (await git(REPO, ['show', '-s', '--format=%s%n%cs', commit])).split('\n');
  return { commit, version: packageJson.version, subject, date };
}

const processes: TallyProcess[] = [];
function start(...args: Parameters<typeof startTallyProcess>): TallyProcess {
  const tally = startTallyProcess(...args);
  processes.push(tally);
  return tally;
}

async function startWeb(label: string, codeDir: string, env: Record<string, string>) {
  const port = await freePort();
  const web = start(label, codeDir, 'web', { ...env, PORT: String(port) }, LOG_DIR);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(web, webIsReady(url));
  return { web, url };
}

async function startWorker(label: string, codeDir: string, env: Record<string, string>) {
  const worker = start(label, codeDir, 'worker', env, LOG_DIR);
  await waitUntilReady(worker, hasLogged(worker, 'worker started'));
  return worker;
}

async function runRelease(label: string, codeDir: string, env: Record<string, string>): Promise<string[]> {
  const release = start(label, codeDir, 'release', env, LOG_DIR);
  await runToEnd(release);
  const entries = await logEntries(release);
  return entries.filter((entry) => entry.msg === 'migration applied').map((entry) => String(entry.migration));
}

async function drill(database: { connectionString: string }, previousDir: string, previous: PreviousRelease) {
  const env = { DATABASE_URL: database.connectionString, WEBHOOK_SECRETS: SECRET, API_TOKEN: TOKEN };
  const oldMigrations = await runRelease('old release', previousDir, env);
  say(
    `old release ${previous.version}: release applied ${oldMigrations.length} migrations to an empty database`,
  );
  const oldWeb = await startWeb('old web', previousDir, env);
  const oldWorker = await startWorker('old worker', previousDir, env);
  say(`old web (${oldWeb.url}) and old worker running`);

  const rotation = [oldWeb.url];
  const load = startWebhookLoad({ rate: DELIVERIES_PER_SECOND, secret: SECRET, rotation });
  load.setPhase('old release alone');
  const ticker = setInterval(async () => {
    const status = await readStatus(rotation.at(-1) as string, TOKEN).catch(() => null);
    say(
      `load: ${load.sent()} sent, ${load.acknowledged.size} distinct acknowledged, ` +
        `${[...load.answers].filter(([a]) => a !== '200').reduce((sum, [, n]) => sum + n, 0)} not 200; ` +
        `unprocessed ${status?.unprocessed_events ?? '?'}, unreconciled payments ${status?.unreconciled_payments ?? '?'}`,
    );
  }, 5_000);
  say(`webhook load started: ${DELIVERIES_PER_SECOND} signed deliveries a second, one in ten a redelivery`);
  await sleep(STAGE_MS.oldAlone);

  load.setPhase('new release migrating');
  const releaseStarted = Date.now();
  say('new release: applying this checkout’s migrations while the old web and worker run');
  const newMigrations = await runRelease('new release', REPO, env);
  say(
    `new release done in ${seconds(Date.now() - releaseStarted)} s: ${newMigrations.length} migrations applied` +
      (newMigrations.length > 0 ? ` (${newMigrations.join(', ')})` : ' (the previous release had them all)'),
  );
  load.setPhase('old code on the new schema');
  await sleep(STAGE_MS.afterRelease);

  load.setPhase('rolling web');
  const newWeb = await startWeb('new web', REPO, env);
  rotation.push(newWeb.url);
  say(`new web (${newWeb.url}) running; the load goes to both webs`);
  await sleep(STAGE_MS.bothAtOnce);
  // As a load balancer drains a target: no new request, those it holds answered, then SIGTERM (its idle
  // keep-alive connections are closed then, which is safe only once nothing is being sent on them).
  rotation.splice(rotation.indexOf(oldWeb.url), 1);
  const drainStarted = Date.now();
  const held = load.inFlightTo(oldWeb.url);
  while (load.inFlightTo(oldWeb.url) > 0 && Date.now() - drainStarted < 10_000) await sleep(10);
  say(
    `old web out of the rotation; the ${held} requests it held answered in ${seconds(Date.now() - drainStarted)} s`,
  );
  const webStop = await stopGracefully(oldWeb.web);
  say(`old web stopped with SIGTERM: exit 0 after ${seconds(webStop)} s`);

  load.setPhase('rolling worker');
  const newWorker = await startWorker('new worker', REPO, env);
  say('new worker running beside the old one');
  await sleep(STAGE_MS.bothAtOnce);
  const workerStop = await stopGracefully(oldWorker);
  say(`old worker stopped with SIGTERM: exit 0 after ${seconds(workerStop)} s`);

  load.setPhase('new release alone');
  await sleep(STAGE_MS.newAlone);
  await load.stop();
  clearInterval(ticker);
  const lastSend = Date.now();
  say(`load stopped: ${load.sent()} deliveries sent, every one answered`);

  const status = await waitForCatchUp(newWeb.url, TOKEN, DRAIN_TIMEOUT_MS);
  const caughtUp =
    !(status instanceof Error) && status.unprocessed_events + status.unreconciled_payments === 0;
  say(
    `new worker ${caughtUp ? 'caught up' : 'not caught up'} ${seconds(Date.now() - lastSend)} s after the last delivery`,
  );

  const pool = new pg.Pool({ connectionString: database.connectionString, max: 2 });
  const failures = await checkAfterUpgrade(pool, load, status).finally(() => pool.end());
  await stopGracefully(newWeb.web);
  await stopGracefully(newWorker);

  const errorLines: string[] = [];
  for (const tally of processes) {
    const errors = (await logEntries(tally)).filter((entry) => Number(entry.level) >= 50);
    if (errors.length > 0)
      errorLines.push(`${tally.label} ${errors.length} (first: ${String(errors[0]?.msg)})`);
  }
  if (errorLines.length > 0) failures.push(`error log lines: ${errorLines.join('; ')}`);
  const logScan = await scanLogs(LOG_DIR);
  failures.push(...logScan.problems);
  return { load, newMigrations, failures, logScan };
}

async function main() {
  const currentVersion = (
    JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const previous = await previousRelease(currentVersion);
  const head = (await git(REPO, ['rev-parse', '--short=7', 'HEAD'])).trim();
  const changed = (await git(REPO, ['status', '--porcelain', '--untracked-files=no'])).trim() !== '';
  say(
    `upgrade drill: from ${previous.version}, release commit ${previous.commit.slice(0, 7)} (${previous.date}, ` +
      `"${previous.subject}"), to ${currentVersion}, this checkout at ${head}${changed ? ' with uncommitted changes' : ''}`,
  );
  const previousDir = path.join(WORK_DIR, `release-${previous.commit.slice(0, 12)}`);
  await rm(LOG_DIR, { recursive: true, force: true });
  await mkdir(LOG_DIR, { recursive: true });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-upgrade-drill-'));
  // Postgres runs as the `postgres` user when the drill runs as root: it must be able to reach the directory.
  await chmod(dataDir, 0o777);
  let database: EmbeddedDatabase | null = null;
  try {
    const installed = await checkOutPreviousRelease(REPO, previous.commit, previousDir);
    say(`previous release checked out in ${path.relative(REPO, previousDir)}: ${installed}`);
    database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
    say('one embedded Postgres started');
    const { load, newMigrations, failures, logScan } = await drill(database, previousDir, previous);
    const answers = [...load.answers].map(([answer, n]) => `${n} × ${answer}`).join(', ');
    const serverErrors = [...load.answers]
      .filter(([a]) => a.startsWith('5'))
      .reduce((sum, [, n]) => sum + n, 0);
    const line = (label: string, value: string | number) => `  ${label.padEnd(28)} ${value}\n`;
    process.stdout.write(
      `\nupgrade drill summary: ${previous.version} (${previous.commit.slice(0, 7)}) to ${currentVersion} (${head})\n` +
        line('deliveries sent', load.sent()) +
        line('distinct events, payments', `${load.distinctEvents().size}, ${load.payments.size}`) +
        line('answers', answers) +
        line('5xx answers', serverErrors) +
        line('migrations by new release', newMigrations.length) +
        line('log lines scanned, leaks', `${logScan.lines}, ${logScan.problems.length}`) +
        line('duration', `${seconds(Date.now() - started)} s`) +
        '  acknowledgement times by stage:\n',
    );
    for (const [phase, stats] of load.phases) {
      const { p50, p99, max } = percentiles(stats.latenciesMs);
      process.stdout.write(
        line(
          `  ${phase}`,
          `${String(stats.sent).padStart(5)} sent, p50 ${p50} ms, p99 ${p99} ms, max ${max} ms`,
        ),
      );
    }
    if (failures.length > 0) {
      process.stdout.write(`FAILED:\n${failures.map((failure) => `  - ${failure}`).join('\n')}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write('passed: nothing lost or duplicated, no 5xx, every payment reconciled\n');
    }
  } finally {
    for (const tally of processes) if (tally.child.exitCode === null) tally.child.kill('SIGKILL');
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(previousDir, { recursive: true, force: true });
  }
}

await main().catch((err: unknown) => {
  process.stderr.write(`upgrade drill failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
// A drill stopped by an error leaves its load's timers behind: the exit must not wait for them.
process.exit();
