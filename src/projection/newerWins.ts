import { columnList, recordDefinition, type SqlType } from './columnTypes.ts';

export type NewerWinsSpec<Column extends string> = {
  /** Column groups, each replaced only when the incoming row's `key` tuple is greater than the stored one. */
  groups: readonly { key: readonly Column[]; columns: readonly Column[] }[];
  /** Facts such as "authorized at": the earliest time any snapshot showed them. */
  earliest?: readonly Column[];
  /** Columns with their own update expression (`excluded.x`, `<table>.x`). */
  custom?: { readonly [C in Column]?: string };
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
 * SQL for an upsert from one jsonb parameter ($1, keyed by column name, read with the column types given)
 * in which the stored row keeps, per group, the values of the greatest order key seen. A maximum over a set
 * does not depend on the order the rows arrive in, which is what lets a projection be rebuilt exactly from
 * the raw log.
 */
export function newerWinsUpsert<Column extends string, const Spec extends NewerWinsSpec<NoInfer<Column>>>(
  table: string,
  columnTypes: { readonly [C in Column | 'id']: SqlType },
  spec: Spec & EveryColumnHasRule<Column, Spec>,
): string {
  const earliest = spec.earliest ?? [];
  const custom: Partial<Record<string, string>> = spec.custom ?? {};
  const assignments = spec.groups.flatMap((group) => {
    const incoming = group.key.map((column) => `excluded.${column}`).join(', ');
    const stored = group.key.map((column) => `${table}.${column}`).join(', ');
    return [...group.columns, ...group.key].map(
      (column) =>
        `${column} = case when (${incoming}) > (${stored}) then excluded.${column} else ${table}.${column} end`,
    );
  });
  for (const column of earliest)
    assignments.push(`${column} = least(${table}.${column}, excluded.${column})`);
  for (const [column, expression] of Object.entries(custom)) assignments.push(`${column} = ${expression}`);
  const columns = columnList(columnTypes);
  return `insert into ${table} (${columns})
    select ${columns} from jsonb_to_record($1::jsonb) as r(${recordDefinition(columnTypes)})
    on conflict (id) do update set ${assignments.join(',\n      ')}`;
}
