export type SqlType = 'text' | 'date' | 'bigint' | 'integer' | 'boolean' | 'timestamptz' | 'jsonb';

/** The SQL types a row field may be read as, from its TypeScript type: a timestamp cannot be declared text. */
type SqlTypesOf<Value> = unknown extends Value
  ? 'jsonb'
  : NonNullable<Value> extends Date | '-infinity'
    ? 'timestamptz'
    : NonNullable<Value> extends number
      ? 'bigint' | 'integer'
      : NonNullable<Value> extends boolean
        ? 'boolean'
        : NonNullable<Value> extends string
          ? 'text' | 'date'
          : 'jsonb';

/**
 * Every column of a row type with its SQL type. Declared as `const X_COLUMNS: ColumnTypes<XRow> = {…}`, a
 * column missing from the map or a name that is not a field of the row is a compile error, so the SQL built
 * from the map has exactly the row's columns; test/db/rowTypes.test.ts checks each map against the migrated
 * table ([decision 0009](../../docs/decisions/0009-row-types-checked-against-the-schema.md)).
 */
export type ColumnTypes<Row> = { readonly [Column in keyof Row]-?: SqlTypesOf<Row[Column]> };

/** `a, b, c`: the insert and select list of a map's columns. */
export function columnList(columnTypes: Readonly<Record<string, SqlType>>): string {
  return Object.keys(columnTypes).join(', ');
}

/** `x = excluded.x` for every column but the conflict key `id`: an upsert that takes the incoming row whole. */
export function setFromExcluded(columnTypes: Readonly<Record<string, SqlType>>): string {
  return Object.keys(columnTypes)
    .filter((column) => column !== 'id')
    .map((column) => `${column} = excluded.${column}`)
    .join(', ');
}

/**
 * The column definition list of `jsonb_to_record(…) as r(<this>)`: each key is read with the column's own
 * type, as `jsonb_populate_record` did, so `'-infinity'` still reads as a timestamp. A listed key the jsonb
 * lacks reads as null (a completion leaves out its checkout's fields).
 */
export function recordDefinition(columnTypes: Readonly<Record<string, SqlType>>): string {
  return Object.entries(columnTypes)
    .map(([column, type]) => `${column} ${type}`)
    .join(', ');
}
