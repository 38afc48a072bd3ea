// Fills a database with a year of deliveries (bench/yearFill.ts) as a bulk load: the filled tables' indexes
// and constraints are dropped, the rows inserted in chunks, then the indexes built in one pass each (what a
// restore does), and the tables vacuumed and analysed as autovacuum would have left them after a year.
import pg from 'pg';
import { continueEventIds, FILLED_TABLES, fillPayments, paymentCount, type YearShape } from './yearFill.ts';

// One statement per chunk of payments: a single one would hold a transaction the size of the year.
const CHUNK_PAYMENTS = 250_000;

const progress = (message: string) => process.stderr.write(`${message}\n`);

async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  progress(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/**
 * Drops the tables' indexes and constraints (and the foreign keys that point at them), returning the
 * statements that put them back: indexes first, then primary and unique keys, then foreign keys.
 */
async function dropIndexes(db: pg.ClientBase, tables: string[]): Promise<string[]> {
  const { rows: constraints } = await db.query<{ drop: string; create: string; kind: string }>(
    `select format('alter table %s drop constraint %I', conrelid::regclass, conname) as drop,
            format('alter table %s add constraint %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
              as create,
            contype::text as kind
       from pg_constraint
      where (contype in ('p', 'u') and conrelid = any($1::regclass[]))
         or (contype = 'f' and (conrelid = any($1::regclass[]) or confrelid = any($1::regclass[])))
      order by contype = 'f' desc`,
    [tables],
  );
  const { rows: indexes } = await db.query<{ drop: string; create: string }>(
    `select format('drop index %s', indexrelid::regclass) as drop, pg_get_indexdef(indexrelid) as create
       from pg_index
      where indrelid = any($1::regclass[])
        and not exists (select 1 from pg_constraint c where c.conindid = indexrelid and c.contype in ('p', 'u'))`,
    [tables],
  );
  for (const { drop } of [...constraints, ...indexes]) await db.query(drop);
  const keys = constraints.filter(({ kind }) => kind !== 'f').map(({ create }) => create);
  const foreign = constraints.filter(({ kind }) => kind === 'f').map(({ create }) => create);
  return [...indexes.map(({ create }) => create), ...keys, ...foreign];
}

/** Fills the year into the database at `connectionString`, printing each step's time; returns the seconds. */
export async function fillYear(connectionString: string, shape: YearShape): Promise<number> {
  const started = performance.now();
  const db = new pg.Client({ connectionString });
  await db.connect();
  try {
    // The index builds' memory, for this session only.
    await db.query(`set maintenance_work_mem = '1GB'`);
    const recreate = await step('drop indexes', () => dropIndexes(db, FILLED_TABLES));
    const payments = paymentCount(shape);
    for (let from = 1; from <= payments; from += CHUNK_PAYMENTS) {
      const to = Math.min(from + CHUNK_PAYMENTS - 1, payments);
      await step(`payments ${from}–${to} of ${payments} and their ${2 * (to - from + 1)} deliveries`, () =>
        fillPayments(db, shape, from, to),
      );
    }
    await step(`build ${recreate.length} indexes and constraints`, async () => {
      for (const statement of recreate) await db.query(statement);
    });
    await continueEventIds(db);
    await step('vacuum (analyze) the filled tables', () =>
      db.query(`vacuum (analyze) ${FILLED_TABLES.join(', ')}`),
    );
    // The rounds start from a clean state, not in the middle of writing out the fill.
    await step('checkpoint', () => db.query('checkpoint'));
  } finally {
    await db.end();
  }
  return (performance.now() - started) / 1000;
}

/** The same rows for payments [from, to] only, into a database that keeps its indexes (a small fill). */
export async function fillPaymentRange(connectionString: string, shape: YearShape, range: [number, number]) {
  const db = new pg.Client({ connectionString });
  await db.connect();
  try {
    await fillPayments(db, shape, range[0], range[1]);
    await continueEventIds(db);
    await db.query(`vacuum (analyze) ${FILLED_TABLES.join(', ')}`);
  } finally {
    await db.end();
  }
}
