import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAST_MIGRATION_BEFORE_THE_RULES, lintNewMigrations } from '../../scripts/lintMigrations.ts';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'migrationLint');

async function lintOne(sql: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-lint-'));
  await writeFile(
    path.join(dir, `${String(LAST_MIGRATION_BEFORE_THE_RULES + 1).padStart(4, '0')}_change.sql`),
    sql,
  );
  return lintNewMigrations(dir);
}

describe('the migration linter (squawk)', () => {
  it('finds no blocking lock in the migrations written under the rules', async () => {
    const result = await lintNewMigrations();
    expect(result.findings).toEqual([]);
    expect(result.passed).toBe(true);
  });

  it('fails a migration that builds an index on an existing table without CONCURRENTLY, with squawk’s message', async () => {
    const result = await lintNewMigrations(path.join(FIXTURES, 'blocking'));
    expect(result.passed).toBe(false);
    expect(result.findings).toEqual([
      expect.stringMatching(
        /blocking\/0023_payments_note\.sql:3:1: require-concurrent-index-creation: During normal index creation, table updates are blocked/,
      ),
    ]);
  });

  it('passes a new table with inline constraints, a nullable column and a concurrent index outside a transaction', async () => {
    expect(await lintNewMigrations(path.join(FIXTURES, 'safe'))).toEqual({ passed: true, findings: [] });
  });

  it.each([
    [
      'a column with a volatile default',
      'alter table payments add column drawn float default random();',
      'adding-field-with-default',
    ],
    [
      'a constraint without NOT VALID',
      "alter table payments add constraint currency_set check (currency <> '');",
      'constraint-missing-not-valid',
    ],
    [
      'a column type change',
      'alter table payments alter column amount type numeric;',
      'changing-column-type',
    ],
    [
      'a column set NOT NULL',
      'alter table payments alter column currency set not null;',
      'adding-not-nullable-field',
    ],
    [
      'an index dropped without CONCURRENTLY',
      'drop index payments_failed_at_idx;',
      'require-concurrent-index-deletion',
    ],
    [
      'a concurrent build without the no-transaction marker',
      'create index concurrently if not exists payments_x_idx on payments (currency);',
      'tally-no-transaction-marker',
    ],
    [
      'a concurrent build among other statements without the no-transaction marker',
      'create table t (id bigint primary key);\ncreate index concurrently if not exists payments_x_idx on payments (currency);',
      'ban-concurrent-index-creation-in-transaction',
    ],
    [
      'a no-transaction migration that could not run again',
      '-- tally:no-transaction\ncreate index concurrently payments_x_idx on payments (currency);',
      'prefer-robust-stmts',
    ],
  ])('fails %s', async (_, sql, rule) => {
    const result = await lintOne(sql);
    expect(result.passed).toBe(false);
    expect(result.findings.join('\n')).toContain(`: ${rule}: `);
  });

  it('considers migrations above the last one written before the rules, and none before', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-lint-'));
    const old = String(LAST_MIGRATION_BEFORE_THE_RULES).padStart(4, '0');
    await writeFile(
      path.join(dir, `${old}_before_the_rules.sql`),
      'create index payments_y_idx on payments (currency);',
    );
    expect(await lintNewMigrations(dir)).toEqual({ passed: true, findings: [] });
  });
});
