import type pg from 'pg';
import type { Queryable } from '../db/pool.ts';
import { columnList, recordDefinition, type SqlType } from './columnTypes.ts';

/** The two forms of one upsert statement: see `runNewerWinsUpsert`. */
export type NewerWinsUpsert = { merging: string; distinctIds: string };

export type NewerWinsSpec<Column extends string> = {
  /** Column groups, each replaced only when the incoming row's `key` tuple is greater than the stored one. */
  groups: readonly { key: readonly Column[]; columns: readonly Column[] }[];
  /** Facts such as "authorized at": the earliest time any snapshot showed them. */
  earliest?: readonly Column[];
  /**
   * Columns with their own rule, written twice: `merge`, an aggregate over the batch's rows of one id, and
   * `update`, which combines that merged row (`excluded.x`) with the stored one (`<table>.x`).
   */
  custom?: { readonly [C in Column]?: { merge: string; update: string } };
};

type ColumnsWithRule<Spec extends NewerWinsSpec<string>> =
  | Spec['groups'][number]['key' | 'columns'][number]
  | NonNullable<Spec['earliest']>[number]
  | keyof NonNullable<Spec['custom']>;

// A column without an update rule would keep the value of the first row ever inserted: a compile error
// that names the columns.
type EveryColumnHasRule<Column extends string, Spec extends NewerWinsSpec<string>> = [
  Exclude<Column, 'id' | ColumnsWithRule<Spec>>,
] extends [never]
  ? unknown
  : { columnsWithoutRule: Exclude<Column, 'id' | ColumnsWithRule<Spec>> };

/**
 * SQL for an upsert of a batch of rows (one jsonb array parameter, $1, keyed by column name, read with the
 * column types given) in which the stored row keeps, per group, the values of the greatest order key seen.
 * Postgres refuses to update one row twice in a statement, so the rows of one id are first merged with the
 * same rules (per group the row of the greatest key, the least of each earliest fact): a maximum over a set
 * does not depend on the order the rows arrive in, which is what lets a projection be rebuilt exactly from
 * the raw log, and lets a batch give what its deliveries one at a time give. Rows are written in id order,
 * so concurrent batches lock shared rows in one order and never deadlock. `returning` is appended to both forms.
 */
export function newerWinsUpsert<Column extends string, const Spec extends NewerWinsSpec<NoInfer<Column>>>(
  table: string,
  columnTypes: { readonly [C in Column | 'id']: SqlType },
  spec: Spec & EveryColumnHasRule<Column, Spec>,
  returning = '',
): NewerWinsUpsert {
  const earliest = spec.earliest ?? [];
  const custom: Partial<Record<string, { merge: string; update: string }>> = spec.custom ?? {};
  const merged = new Map<string, string>([['id', 'id']]);
  const assignments = spec.groups.flatMap((group) => {
    const newestFirst = group.key.map((column) => `${column} desc`).join(', ');
    const incoming = group.key.map((column) => `excluded.${column}`).join(', ');
    const stored = group.key.map((column) => `${table}.${column}`).join(', ');
    return [...group.columns, ...group.key].map((column) => {
      merged.set(column, `(array_agg(${column} order by ${newestFirst}))[1]`);
      return `${column} = case when (${incoming}) > (${stored}) then excluded.${column} else ${table}.${column} end`;
    });
  });
  for (const column of earliest) {
    merged.set(column, `min(${column})`);
    assignments.push(`${column} = least(${table}.${column}, excluded.${column})`);
  }
  for (const [column, rule] of Object.entries(custom)) {
    if (!rule) continue;
    merged.set(column, rule.merge);
    assignments.push(`${column} = ${rule.update}`);
  }
  const columns = Object.keys(columnTypes);
  const conflict = `on conflict (id) do update set ${assignments.join(',\n      ')}`;
  return {
    merging: `insert into ${table} (${columnList(columnTypes)})
    select ${columns.map((column) => merged.get(column)).join(', ')}
      from jsonb_to_recordset($1::jsonb) as r(${recordDefinition(columnTypes)})
     group by id
     order by id
    ${conflict}
    ${returning}`,
    distinctIds: `insert into ${table} (${columnList(columnTypes)})
    select ${columnList(columnTypes)}
      from jsonb_to_recordset($1::jsonb) as r(${recordDefinition(columnTypes)})
     order by id
    ${conflict}
    ${returning}`,
  };
}

/**
 * Runs a newer-wins upsert for a batch of rows. Rows of one id are merged first; a batch whose ids are all
 * distinct (the usual case) skips the merge, which gives the same rows (every merge rule of one row is that
 * row) without an ordered aggregate per column and row, most of the statement's time.
 */
export function runNewerWinsUpsert<Row extends { id: string }, Result extends pg.QueryResultRow>(
  db: Queryable,
  upsert: NewerWinsUpsert,
  rows: readonly Row[],
) {
  const distinct = new Set(rows.map((row) => row.id)).size === rows.length;
  // Stringified here: pg would send a JavaScript array as a Postgres array, not as jsonb.
  return db.query<Result>(distinct ? upsert.distinctIds : upsert.merging, [JSON.stringify(rows)]);
}
