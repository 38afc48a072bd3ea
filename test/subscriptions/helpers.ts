import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sequenceChanges } from '../../src/changes/sequenceChanges.ts';
import type { Pool } from '../../src/db/pool.ts';

export type TestChange = {
  type: string;
  object_id: string;
  object_version: number;
  data?: Record<string, unknown>;
  recorded_at?: Date;
};

/**
 * Appends changes as the outbox does (in one transaction, unsequenced) and numbers them, standing in for the
 * projections' own appends in tests of forwarding alone.
 */
export async function appendChanges(pool: Pool, changes: TestChange[]): Promise<void> {
  await pool.query(
    `insert into changes (type, object, object_id, object_version, account_id, account_type, occurred_at,
                          recorded_at, event_ids, data)
     select c.type, split_part(c.type, '.', 1), c.object_id, c.object_version, 'acc_1', 'test', now(),
            coalesce(c.recorded_at, now()), array['evt_' || c.object_id || '_' || c.object_version], c.data
       from jsonb_to_recordset($1::jsonb)
            as c(type text, object_id text, object_version int, recorded_at timestamptz, data jsonb)`,
    [
      JSON.stringify(
        changes.map((change) => ({
          ...change,
          data: change.data ?? { id: change.object_id, version: change.object_version },
        })),
      ),
    ],
  );
  await sequenceChanges(pool);
}

export type Received = { headers: http.IncomingHttpHeaders; body: string; at: number };
export type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A local receiver: records every request, answers with `answer` (200 unless told). */
export async function startReceiver(answer: Answer = (_req, res) => res.end('ok')) {
  const received: Received[] = [];
  let current = answer;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ headers: req.headers, body, at: Date.now() });
      current(req, res, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    answerWith: (next: Answer) => {
      current = next;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}

/** Verifies a received delivery with the `standardwebhooks` package; throws when no signature matches. */
export function verifyDelivery(secret: string, delivery: Received): unknown {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  });
}
