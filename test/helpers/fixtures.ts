import { readdirSync, readFileSync } from 'node:fs';
import type { Express } from 'express';
import type { JobWithMetadata } from 'pg-boss';
import request from 'supertest';
import { expect } from 'vitest';
import { recordedDeliverySchema } from '../../src/ingest/recorded.ts';
import type { TestApp } from './app.ts';
import { postSigned } from './deliveries.ts';
import { until, waitFor } from './waitFor.ts';

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

type JobState = JobWithMetadata['state'];
const UNFINISHED: readonly JobState[] = ['created', 'retry', 'active'];

/**
 * Jobs of these queues in one of these states, read through pg-boss's API. Its filter finds queued
 * jobs (created or retry) only; active ones take reading the whole queue, which is cheap at test sizes,
 * so that is done only once nothing is queued. Name queues upstream first (a job's follow-ups are enqueued
 * before it finishes, so none is missed); deliveries waiting to be projected are `drain`'s.
 */
export async function unfinishedJobs(t: TestApp, names: string[], states = UNFINISHED) {
  for (const name of names) {
    const queued = await t.boss.findJobs(name, { queued: true, limit: 100_000 });
    const found = queued.filter((job) => states.includes(job.state));
    if (found.length > 0) return found;
  }
  if (!states.includes('active')) return [];
  for (const name of names) {
    const found = (await t.boss.findJobs(name, { limit: 100_000 })).filter((job) =>
      states.includes(job.state),
    );
    if (found.length > 0) return found;
  }
  return [];
}

/** Waits until no job of these queues (named upstream first) is created, retrying or active. */
export async function waitForJobs(t: TestApp, names: string[], timeoutMs = 20_000): Promise<void> {
  await waitFor(
    `jobs of ${names.join(', ')} to finish`,
    async () => {
      const unfinished = await unfinishedJobs(t, names);
      const detail = unfinished.map((job) => ({ name: job.name, state: job.state, output: job.output }));
      until(unfinished.length === 0, `unfinished: ${JSON.stringify(detail)}`);
    },
    { timeoutMs },
  );
}

/** Waits until the worker has projected every stored delivery (retries of an already failed one aside). */
export async function drain(t: TestApp, timeoutMs = 20_000): Promise<void> {
  await waitFor(
    'the worker to project every stored delivery',
    async () => {
      const { rows } = await t.pool.query(`select id, error from events where status = 'received' limit 20`);
      until(rows.length === 0, `still received: ${JSON.stringify(rows)}`);
    },
    { timeoutMs },
  );
}

/** Waits until processing and the reconciliations it queued are done. */
export async function settle(t: TestApp, timeoutMs = 20_000): Promise<void> {
  await drain(t, timeoutMs);
  await waitForJobs(t, ['reconcile-payments'], timeoutMs);
}

/**
 * Starts a job through `POST /api/jobs/:name` (authorised by `auth`) and waits, up to 30 s, until pg-boss
 * reports it completed; a failed job throws with its output.
 */
export async function runJobThroughApi(
  t: TestApp,
  auth: Record<string, string>,
  name: string,
  payload: object = {},
): Promise<void> {
  const response = await request(t.app).post(`/api/jobs/${name}`).set(auth).send(payload);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  await waitFor(
    `job ${name} to complete`,
    async () => {
      const [job] = await t.boss.findJobs(name, { id: response.body.id });
      if (job?.state === 'failed') throw new Error(`${name} failed: ${JSON.stringify(job.output)}`);
      until(job?.state === 'completed', `state ${job?.state ?? 'unknown'}`);
    },
    { timeoutMs: 30_000 },
  );
}
