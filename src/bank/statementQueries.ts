import type { Queryable } from '../db/pool.ts';
import type { StatementFormat, StatementLine } from './statement.ts';

// A session-local table the file's lines stream into, so the file is held by Postgres, not in memory twice.
export async function createImportTable(db: Queryable): Promise<void> {
  await db.query(
    `create temporary table bank_import (
       seq integer not null, bank_account text not null, value_date date not null, amount bigint not null,
       currency text not null, description text not null, reference text not null
     ) on commit drop`,
  );
}

export async function insertImportLines(
  db: Queryable,
  lines: (StatementLine & { seq: number })[],
): Promise<void> {
  await db.query(
    `insert into bank_import
     select * from unnest($1::int[], $2::text[], $3::date[], $4::bigint[], $5::text[], $6::text[], $7::text[])`,
    [
      lines.map((line) => line.seq),
      lines.map((line) => line.bankAccount),
      lines.map((line) => line.valueDate),
      lines.map((line) => line.amount),
      lines.map((line) => line.currency),
      lines.map((line) => line.description),
      lines.map((line) => line.reference),
    ],
  );
}

export type ImportSummary = {
  lines: number;
  credits: number;
  firstDay: string | null;
  lastDay: string | null;
  accounts: string[];
  currencies: string[];
};

export async function summarizeImport(db: Queryable): Promise<ImportSummary> {
  const { rows } = await db.query<ImportSummary>(
    `select count(*)::int as lines, count(*) filter (where amount > 0)::int as credits,
            to_char(min(value_date), 'YYYY-MM-DD') as "firstDay", to_char(max(value_date), 'YYYY-MM-DD') as "lastDay",
            coalesce(array_agg(distinct bank_account) filter (where bank_account <> ''), '{}') as accounts,
            coalesce(array_agg(distinct currency), '{}') as currencies
       from bank_import`,
  );
  return rows[0] as ImportSummary;
}

/** An earlier import of the very same file, by its SHA-256. */
export async function findStatementByFile(db: Queryable, format: StatementFormat, sha256: Buffer) {
  const { rows } = await db.query<{ id: number; lines: number; credits: number }>(
    'select id, lines, credits from bank_statements where format = $1 and file_sha256 = $2 order by id limit 1',
    [format, sha256],
  );
  return rows[0] ?? null;
}

export type NewStatement = {
  format: StatementFormat;
  bankAccount: string;
  sha256: Buffer;
  coversFrom: string;
  coversTo: string;
  currencies: string[];
  lines: number;
  credits: number;
  importedBy: string;
  importedAt: Date;
};

export async function insertStatement(db: Queryable, statement: NewStatement): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `insert into bank_statements (format, bank_account, file_sha256, covers_from, covers_to, currencies, lines,
                                  credits, duplicates, imported_by, imported_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $10) returning id`,
    [
      statement.format,
      statement.bankAccount,
      statement.sha256,
      statement.coversFrom,
      statement.coversTo,
      statement.currencies,
      statement.lines,
      statement.credits,
      statement.importedBy,
      statement.importedAt,
    ],
  );
  return (rows[0] as { id: number }).id;
}

// A line's rank among the identical lines (same account, day, amount, reference) of this file, in file order.
const RANKED = `select *, row_number() over (partition by bank_account, value_date, amount, reference order by seq)::int
                  as rank from bank_import`;

/** The file's lines that are not already stored; returns how many were new. */
export async function insertNewLines(db: Queryable, statementId: number): Promise<number> {
  const { rowCount } = await db.query(
    `insert into bank_lines (statement_id, bank_account, value_date, amount, currency, description, reference, rank)
     select $1, bank_account, value_date, amount, currency, description, reference, rank
       from (${RANKED}) ranked order by seq
     on conflict (bank_account, value_date, amount, reference, rank) do nothing`,
    [statementId],
  );
  return rowCount ?? 0;
}

export async function setStatementDuplicates(db: Queryable, statementId: number, duplicates: number) {
  await db.query('update bank_statements set duplicates = $2 where id = $1', [statementId, duplicates]);
}

/** The file's credits that are matched to a payout, whichever import stored them. */
export async function countMatchedCredits(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ matched: number }>(
    `select count(*)::int as matched
       from (${RANKED}) ranked
       join bank_lines l using (bank_account, value_date, amount, reference, rank)
      where ranked.amount > 0 and l.payout_id is not null`,
  );
  return rows[0]?.matched ?? 0;
}

/** Statements newest first, one row over the limit (see api/routes/pagination.ts). */
export async function listStatements(
  db: Queryable,
  page: { limit: number; afterId: number | null; beforeId: number | null },
) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query(
    `select s.id, s.format, s.bank_account, to_char(s.covers_from, 'YYYY-MM-DD') as covers_from,
            to_char(s.covers_to, 'YYYY-MM-DD') as covers_to, s.currencies, s.lines, s.credits, s.duplicates,
            (select count(*)::int from bank_lines l where l.statement_id = s.id and l.amount > 0
                and l.payout_id is not null) as matched,
            encode(s.file_sha256, 'hex') as file_sha256, s.imported_by, s.imported_at
       from bank_statements s
      where ($1::bigint is null or s.id < $1) and ($2::bigint is null or s.id > $2)
      order by s.id ${backwards ? 'asc' : 'desc'}
      limit $3`,
    [page.afterId, page.beforeId, page.limit + 1],
  );
  return rows as ({ id: number } & Record<string, unknown>)[];
}
