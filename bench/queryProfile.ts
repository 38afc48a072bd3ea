// BENCH_EXPLAIN=1 for the report benches: each query a report runs, with its time and its EXPLAIN (ANALYZE, BUFFERS).
import type pg from 'pg';
import type { Queryable } from '../src/db/pool.ts';

type Recorded = { text: string; values: unknown[]; seconds: number };

/** Records each query a report runs with its time, then explains them one by one. */
export function profileQueries() {
  const recorded: Recorded[] = [];
  return {
    wrap: (client: Queryable): Queryable => ({
      query: (async (text: string, values: unknown[]) => {
        const started = performance.now();
        const result = await client.query(text, values);
        recorded.push({ text, values, seconds: (performance.now() - started) / 1000 });
        return result;
      }) as Queryable['query'],
    }),
    explain: async (client: pg.PoolClient) => {
      for (const { text, values, seconds } of recorded) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, buffers) ${text}`,
          values,
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        process.stderr.write(
          `\n${seconds.toFixed(3)} s  ${text.replace(/\s+/g, ' ').slice(0, 120)}\n${plan}\n`,
        );
      }
    },
  };
}
