export type NewerWinsSpec = {
  /** Column groups, each replaced only when the incoming row's `key` tuple is greater than the stored one. */
  groups: { key: string[]; columns: string[] }[];
  /** Facts such as "authorized at": the earliest time any snapshot showed them. */
  earliest?: string[];
  /** Columns with their own update expression (`excluded.x`, `<table>.x`). */
  custom?: Record<string, string>;
};

/**
 * SQL for an upsert from one jsonb parameter ($1, keyed by column name) in which the stored row keeps, per
 * group, the values of the greatest order key seen. A maximum over a set does not depend on the order the
 * rows arrive in, which is what lets a projection be rebuilt exactly from the raw log.
 */
export function newerWinsUpsert(table: string, spec: NewerWinsSpec): string {
  const earliest = spec.earliest ?? [];
  const custom = spec.custom ?? {};
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
  const columns = [
    ...new Set([
      ...spec.groups.flatMap((group) => [...group.key, ...group.columns]),
      ...earliest,
      ...Object.keys(custom),
    ]),
  ].join(', ');
  return `insert into ${table} (id, ${columns})
    select id, ${columns} from jsonb_populate_record(null::${table}, $1::jsonb)
    on conflict (id) do update set ${assignments.join(',\n      ')}`;
}
