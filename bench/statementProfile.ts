// BENCH_STATEMENTS=1 for bench:ingest and bench:worker: what each stored delivery cost Postgres, by statement
// (pg_stat_statements: execution time, buffers, WAL), by table (rows inserted, updated in place or as a new
// version, deleted) and by relation (bytes each heap and index grew), and the WAL of the whole run.
import pg from 'pg';

/** Server settings that load pg_stat_statements: given to the bench's own embedded Postgres only. */
export const STATEMENT_STATISTICS_SETTINGS = [
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.track_utility=on',
];

export const statementProfileWanted = () => process.env.BENCH_STATEMENTS === '1';

type Statement = {
  query: string;
  calls: number;
  exec_ms: number;
  blocks_dirtied: number;
  wal_bytes: number;
  wal_fpi: number;
};
type TableWrites = { relname: string; inserted: number; updated: number; hot: number; deleted: number };
type RelationSize = { name: string; bytes: number };

const SIZES = `select c.relname as name, pg_relation_size(c.oid)::float8 as bytes
                 from pg_class c join pg_namespace n on n.oid = c.relnamespace
                where n.nspname = 'public' and c.relkind in ('r', 'i')`;
// Statements listed one by one, by execution time; the rest are summed in one line.
const LISTED_STATEMENTS = 14;

/**
 * Resets the statistics of `database` (a superuser's `admin` pool on the same server creates the extension
 * once) and returns a function that, given how many deliveries were stored, writes the profile since then on
 * stderr. Call it once the processes have exited, so their table statistics are flushed.
 */
export async function startStatementProfile(
  admin: pg.Pool,
  database: pg.Pool,
  label: string,
): Promise<(deliveries: number) => Promise<void>> {
  await admin.query('create extension if not exists pg_stat_statements');
  await database.query('select pg_stat_reset()');
  await admin.query('select pg_stat_statements_reset()');
  const sizesBefore = new Map((await database.query<RelationSize>(SIZES)).rows.map((r) => [r.name, r.bytes]));
  const lsn = (await admin.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]?.lsn;
  return async (deliveries) => {
    const wal = await admin.query<{ bytes: number }>(
      'select pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::float8 as bytes',
      [lsn],
    );
    const { rows: statements } = await admin.query<Statement>(
      `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls::float8 as calls,
              total_exec_time as exec_ms, shared_blks_dirtied::float8 as blocks_dirtied,
              wal_bytes::float8 as wal_bytes, wal_fpi::float8 as wal_fpi
         from pg_stat_statements
        where dbid = (select oid from pg_database where datname = $1)
        order by total_exec_time desc`,
      [(await database.query<{ name: string }>('select current_database() as name')).rows[0]?.name],
    );
    const { rows: tables } = await database.query<TableWrites>(
      `select relname, n_tup_ins::float8 as inserted, n_tup_upd::float8 as updated,
              n_tup_hot_upd::float8 as hot, n_tup_del::float8 as deleted
         from pg_stat_user_tables where n_tup_ins + n_tup_upd + n_tup_del > 0 order by n_tup_ins + n_tup_upd desc`,
    );
    const grown = (await database.query<RelationSize>(SIZES)).rows
      .map((r) => ({ name: r.name, bytes: r.bytes - (sizesBefore.get(r.name) ?? 0) }))
      .filter((r) => r.bytes > 0)
      .sort((a, b) => b.bytes - a.bytes);
    const lines = describeProfile(label, deliveries, wal.rows[0]?.bytes ?? 0, statements, tables, grown);
    process.stderr.write(`${lines.join('\n')}\n`);
  };
}

function describeProfile(
  label: string,
  deliveries: number,
  walBytes: number,
  statements: Statement[],
  tables: TableWrites[],
  grown: RelationSize[],
): string[] {
  const each = (value: number) => value / Math.max(deliveries, 1);
  const perThousand = (value: number) => (1000 * each(value)).toFixed(0);
  const microseconds = (ms: number) => (1000 * each(ms)).toFixed(1);
  const sum = (rows: Statement[], pick: (s: Statement) => number) => rows.reduce((t, s) => t + pick(s), 0);
  const listed = statements.slice(0, LISTED_STATEMENTS);
  const others = statements.slice(LISTED_STATEMENTS);
  return [
    `statement profile, ${label}: ${deliveries} deliveries stored; WAL ${each(walBytes).toFixed(0)} B a delivery;` +
      ` statements ${microseconds(sum(statements, (s) => s.exec_ms))} µs and ${each(sum(statements, (s) => s.wal_bytes)).toFixed(0)} B of WAL a delivery`,
    '| statement | calls per 1,000 | µs a delivery | WAL B a delivery | full pages per 1,000 | blocks dirtied per 1,000 |',
    '|---|---|---|---|---|---|',
    ...listed.map(
      (s) =>
        `| \`${s.query.slice(0, 90)}\` | ${perThousand(s.calls)} | ${microseconds(s.exec_ms)} | ${each(s.wal_bytes).toFixed(0)} | ${perThousand(s.wal_fpi)} | ${perThousand(s.blocks_dirtied)} |`,
    ),
    `| ${others.length} others | | ${microseconds(sum(others, (s) => s.exec_ms))} | ${each(sum(others, (s) => s.wal_bytes)).toFixed(0)} | | |`,
    '| table | inserted per 1,000 | updated per 1,000 | of them in place (HOT) | deleted per 1,000 |',
    '|---|---|---|---|---|',
    ...tables
      .slice(0, 12)
      .map(
        (t) =>
          `| ${t.relname} | ${perThousand(t.inserted)} | ${perThousand(t.updated)} | ${perThousand(t.hot)} | ${perThousand(t.deleted)} |`,
      ),
    '| relation | grew, B a delivery |',
    '|---|---|',
    ...grown.slice(0, 16).map((r) => `| ${r.name} | ${each(r.bytes).toFixed(0)} |`),
  ];
}

/** Runs `work` against the database at `url` and writes its profile, per delivery stored in `events`. */
export async function profileStatements<T>(
  admin: pg.Pool,
  url: string,
  label: string,
  work: () => Promise<T>,
): Promise<T> {
  const database = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const finish = await startStatementProfile(admin, database, label);
    const result = await work();
    const { rows } = await database.query<{ n: number }>('select count(*)::int as n from events');
    await finish(rows[0]?.n ?? 0);
    return result;
  } finally {
    await database.end();
  }
}
