/**
 * `npm run lint:migrations`: runs squawk over the migrations written under the online-migration rules
 * (docs/operations.md, "Upgrading and migrations") and prints what it finds; exits 1 when it finds anything.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { NO_TRANSACTION_MARKER, readMigrations } from '../src/db/migrate.ts';
import type { Migration } from '../src/db/migrationHistory.ts';
import { splitStatements } from '../src/db/sqlStatements.ts';

/** The last migration written before the rules: the linter checks the ones numbered above it. */
export const LAST_MIGRATION_BEFORE_THE_RULES = 22;

const ROOT = path.join(import.meta.dirname, '..');
const MIGRATIONS_DIR = path.join(ROOT, 'migrations');
const CONFIG = path.join(ROOT, '.squawk.toml');

type Finding = {
  file: string;
  line: number;
  column: number;
  message: string;
  help: string | null;
  rule_name: string;
};
export type LintResult = { passed: boolean; findings: string[] };

/** The migrations of `dir` numbered above the last one written before the rules. */
export async function lintNewMigrations(dir = MIGRATIONS_DIR): Promise<LintResult> {
  const migrations = (await readMigrations(dir)).filter(
    (migration) => migration.version > LAST_MIGRATION_BEFORE_THE_RULES,
  );
  const inTransaction = migrations.filter((migration) => migration.transaction);
  const outside = migrations.filter((migration) => !migration.transaction);
  const findings = [
    ...inTransaction.flatMap((migration) => concurrentInTransaction(dir, migration)),
    ...runSquawk(
      inTransaction.map((migration) => path.join(dir, migration.name)),
      '--assume-in-transaction',
    ),
    // Each statement of these commits on its own: squawk then also asks for `if not exists`, which the
    // runner relies on to run a stopped migration again.
    ...runSquawk(
      outside.map((migration) => path.join(dir, migration.name)),
      '--no-assume-in-transaction',
    ),
  ];
  return { passed: findings.length === 0, findings };
}

// squawk lets a file of one `create index concurrently` pass as if it ran in a transaction; Postgres would
// refuse it at release.
function concurrentInTransaction(dir: string, migration: Migration): string[] {
  const concurrent = splitStatements(migration.sql).some((statement) => /\bconcurrently\b/i.test(statement));
  if (!concurrent) return [];
  return [
    `${path.relative(process.cwd(), path.join(dir, migration.name))}:1:1: tally-no-transaction-marker: ` +
      `CONCURRENTLY cannot run in a transaction. Help: start the file with \`${NO_TRANSACTION_MARKER}\`.`,
  ];
}

function runSquawk(files: string[], transactionFlag: string): string[] {
  if (files.length === 0) return [];
  const binary = createRequire(import.meta.url)('squawk-cli/js/index.js').getBinaryPath() as string;
  const result = spawnSync(binary, ['--config', CONFIG, '--reporter', 'json', transactionFlag, ...files], {
    encoding: 'utf8',
  });
  // squawk exits 1 when it finds something; anything else, or output that is not its JSON, is its own failure.
  if (result.error || (result.status !== 0 && result.status !== 1)) {
    throw new Error(`squawk failed: ${result.error?.message ?? result.stderr}`);
  }
  const findings = JSON.parse(result.stdout) as Finding[];
  // squawk counts lines and columns from 0 in its JSON; editors count from 1.
  return findings.map(
    (finding) =>
      `${path.relative(process.cwd(), finding.file)}:${finding.line + 1}:${finding.column + 1}: ${finding.rule_name}: ` +
      `${finding.message}${finding.help ? ` Help: ${finding.help}` : ''}`,
  );
}

if (import.meta.main) {
  const dir = process.argv[2] ?? MIGRATIONS_DIR;
  const result = await lintNewMigrations(dir);
  for (const finding of result.findings) console.error(finding);
  if (!result.passed) process.exit(1);
  console.info(`squawk found nothing to flag in the migrations above ${LAST_MIGRATION_BEFORE_THE_RULES}`);
}
