import { readdirSync, readFileSync } from 'node:fs';
import type { Express } from 'express';
import { expect } from 'vitest';
import { recordedDeliverySchema } from '../../src/ingest/recorded.ts';
import type { TestApp } from './app.ts';
import { postSigned } from './deliveries.ts';

const DIR = new URL('../fixtures/recorded/', import.meta.url);

/** Raw bodies of a recorded fixture file, e.g. `payment.created`. */
export function fixtureBodies(name: string): string[] {
  return readFileSync(new URL(`${name}.jsonl`, DIR), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => recordedDeliverySchema.parse(JSON.parse(line)).body);
}

export function fixtureNames(): string[] {
  return readdirSync(DIR)
    .filter((file) => file.endsWith('.jsonl') && !file.endsWith('sdk-signature-vector.jsonl'))
    .map((file) => file.replace(/\.jsonl$/, ''));
}

/** Posts raw bodies through POST /webhooks, re-signed for this app as `tally replay --resign` does. */
export async function deliver(app: Express, bodies: string[]): Promise<void> {
  for (const body of bodies) expect((await postSigned(app, body)).status).toBe(200);
}

/** Waits until the worker has taken every stored delivery (jobs retrying an already failed one aside). */
export async function drain(t: TestApp, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await t.pool.query(
      `select (select count(*) from events where status = 'received')::int as waiting,
              (select count(*) from pgboss.job where name = 'process-event' and state in ('created', 'active'))::int as jobs`,
    );
    if (rows[0].waiting === 0 && rows[0].jobs === 0) return;
    if (Date.now() > deadline) {
      const detail = await t.pool.query(
        `select j.state, j.output, e.status, e.error from pgboss.job j left join events e on e.id = (j.data->>'id')::bigint
          where j.name = 'process-event' and (j.state in ('created', 'active') or e.status = 'received')`,
      );
      throw new Error(`worker did not drain: ${JSON.stringify(detail.rows)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until processing and the reconciliations it queued are done. */
export async function settle(t: TestApp, timeoutMs = 20_000): Promise<void> {
  await drain(t, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await t.pool.query(
      `select count(*)::int as n from pgboss.job
        where name in ('process-event', 'reconcile-payment') and state in ('created', 'retry', 'active')`,
    );
    if (rows[0].n === 0) return;
    if (Date.now() > deadline) throw new Error('reconciliation did not settle');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
