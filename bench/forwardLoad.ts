/** bench/forward.ts's pieces: stored deliveries, the outbox's stand-in, a fast receiver and a paced appender. */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from '../src/db/pool.ts';

/** Stores `count` payment deliveries as the webhook stores them (raw bytes), for the worker to project. */
export async function storeDeliveries(pool: Pool, count: number, prefix: string): Promise<void> {
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, offset) => {
      const index = start + offset;
      const minute = String(index % 60).padStart(2, '0');
      return {
        event_id: `evt_${prefix}_${index}`,
        account_id: `acc_${index % 50}`,
        raw: JSON.stringify({
          id: `evt_${prefix}_${index}`,
          event_name: 'payment.succeeded',
          account_id: `acc_${index % 50}`,
          account_type: 'live',
          platform_account_id: 'acc_platform',
          idempotency_key: null,
          request_id: null,
          version: 'v1',
          data: {
            id: `py_${prefix}_${index}`,
            account_id: `acc_${index % 50}`,
            amount: 1234 + index,
            currency: 'usd',
            status: 'succeeded',
            fees: [],
            created_at: `2026-11-02T10:${minute}:00Z`,
            updated_at: `2026-11-02T10:${minute}:10Z`,
          },
        }),
      };
    });
    await pool.query(
      `insert into events (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, received_at)
       select e->>'event_id', 'payment.succeeded', e->>'account_id', 'live', '{}', convert_to(e->>'raw', 'utf8'),
              sha256(convert_to(e->>'raw', 'utf8')), now()
         from jsonb_array_elements($1::jsonb) e`,
      [JSON.stringify(rows)],
    );
  }
}

/**
 * Appends changes as the projections' outbox does, unsequenced, in one transaction: the `count` changes from
 * the `start`-th of a stream over `objects` payments, each payment's versions in order (the n-th change is
 * payment n mod objects, version n / objects + 1).
 */
export async function appendChanges(pool: Pool, start: number, count: number, objects: number) {
  await pool.query(
    `insert into changes (type, object, object_id, object_version, account_id, account_type, occurred_at, event_ids, data)
     select 'payment.updated', 'payment', 'py_' || (n % $3), n / $3 + 1, 'acc_1', 'live', now(), '{evt_1}',
            jsonb_build_object('id', 'py_' || (n % $3), 'amount', 1234, 'currency', 'usd', 'status', 'succeeded')
       from generate_series($1::bigint, $1::bigint + $2 - 1) n`,
    [start, count, objects],
  );
}

/**
 * A receiver that answers 204 at once, noting when each change (by `seq`, up to `capacity`) first arrived, in
 * memory allocated up front: the bench's own notes do not grow the heap it measures.
 */
export async function startFastReceiver(capacity = 0) {
  const arrivedAt = new Float64Array(capacity + 1);
  let arrivals = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals += 1;
      const seq = Number(String(req.headers['webhook-id']).slice('chg_'.length));
      if (seq <= capacity && arrivedAt[seq] === 0) arrivedAt[seq] = Date.now();
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    /** Deliveries received, repeats included. */
    arrivals: () => arrivals,
    /** When the change numbered `seq` first arrived (ms), or 0. */
    arrivedAt: (seq: number) => arrivedAt[seq] ?? 0,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The p-th percentile (0 to 1) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}
