// The latency floor of `npm run bench:ingest`: single-row INSERT … ON CONFLICT DO NOTHING of the same kind
// of bodies into a copy of the events table, sent straight to Postgres at a fixed rate.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { endPool } from './measure.ts';

export type Latency = { p50: number; p99: number; max: number };

const BASELINE_BODY = JSON.stringify({ padding: 'x'.repeat(1450) });

// One delivery as the baseline stores it: a single-row INSERT … ON CONFLICT DO NOTHING of the columns the
// webhook's own insert writes (the raw bytes, the only copy of a body Tally keeps).
function insertBaselineRow(pool: pg.Pool, n: number) {
  const raw = `${BASELINE_BODY}${n}`;
  return pool.query(
    `insert into baseline (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, received_at)
     values ($1, 'payment.succeeded', 'acc', 'live', '{}', $2, $3, now()) on conflict do nothing`,
    [`evt_${n}`, Buffer.from(raw), createHash('sha256').update(raw).digest()],
  );
}

async function baselinePool(connectionString: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString, max: 32 });
  await pool.query('create table if not exists baseline (like events including all)');
  await pool.query('truncate baseline');
  return pool;
}

/**
 * The latency floor: the same single-row inserts sent straight to Postgres at `rate` a second (open loop,
 * each timed from its scheduled moment), with no HTTP and no Node server in between.
 */
export async function baselineLatency(
  connectionString: string,
  seconds: number,
  rate: number,
): Promise<Latency> {
  const pool = await baselinePool(connectionString);
  const total = seconds * rate;
  const latencies: number[] = [];
  const start = performance.now();
  let scheduled = 0;
  await new Promise<void>((resolve) => {
    const ticker = setInterval(() => {
      while (scheduled < total && start + (scheduled * 1000) / rate <= performance.now()) {
        const at = start + (scheduled * 1000) / rate;
        insertBaselineRow(pool, scheduled++).then(() => {
          latencies.push(performance.now() - at);
          if (latencies.length === total) resolve();
        });
      }
      if (scheduled === total) clearInterval(ticker);
    }, 1);
  });
  await endPool(pool);
  const sorted = latencies.sort((a, b) => a - b);
  const at = (share: number) => Number((sorted[Math.floor(share * (sorted.length - 1))] ?? 0).toFixed(1));
  return { p50: at(0.5), p99: at(0.99), max: at(1) };
}
