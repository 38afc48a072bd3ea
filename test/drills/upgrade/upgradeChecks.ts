import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { WebhookLoad } from './webhookLoad.ts';

export type Status = {
  unprocessed_events: number;
  failed_events: number;
  quarantined_events: number;
  unreconciled_payments: number;
  failed_jobs: Record<string, number>;
};

/** `GET /api/status` of a web process: the figures an operator reads, whichever release serves them. */
export async function readStatus(baseUrl: string, token: string): Promise<Status> {
  const response = await fetch(`${baseUrl}/api/status`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  if (response.status !== 200) throw new Error(`GET /api/status answered ${response.status}`);
  return ((await response.json()) as { data: Status }).data;
}

/**
 * Polls the new web's `/api/status` until every delivery is processed and every payment reconciled, or
 * `timeoutMs` passes; answers the last status read, or why it could not be read.
 */
export async function waitForCatchUp(
  baseUrl: string,
  token: string,
  timeoutMs: number,
): Promise<Status | Error> {
  const started = Date.now();
  for (;;) {
    const status = await readStatus(baseUrl, token).catch((err: Error) => err);
    if (status instanceof Error) return status;
    const caughtUp = status.unprocessed_events === 0 && status.unreconciled_payments === 0;
    if (caughtUp || Date.now() - started > timeoutMs) return status;
    await sleep(500);
  }
}

/**
 * What must hold once the load has stopped and the new release has caught up, each failure as a sentence:
 * every delivery answered 200 (so none 5xx), every distinct event stored exactly once and nothing else, every
 * delivery processed, no failed job, and every payment sent reconciled on its newest state.
 */
export async function checkAfterUpgrade(
  pool: pg.Pool,
  load: WebhookLoad,
  status: Status | Error,
): Promise<string[]> {
  const failures = checkAnswers(load);
  // A check that cannot even read what it checks fails with the reason, and the others still run.
  const run = (what: string, check: () => Promise<string[]>) =>
    check().catch((err: Error) => [`${what} could not be checked: ${err.message}`]);
  failures.push(...(await run('storage', () => checkStoredOnce(pool, load))));
  if (status instanceof Error) failures.push(`GET /api/status of the new web failed: ${status.message}`);
  else failures.push(...checkStatus(status));
  failures.push(...(await run('reconciliation', () => checkReconciled(pool, load))));
  return failures;
}

function checkAnswers(load: WebhookLoad): string[] {
  const failures: string[] = [];
  const notAcknowledged = [...load.answers].filter(([answer]) => answer !== '200');
  const serverErrors = notAcknowledged.filter(([answer]) => answer.startsWith('5'));
  if (serverErrors.length > 0) {
    failures.push(`${serverErrors.reduce((sum, [, n]) => sum + n, 0)} deliveries answered 5xx`);
  }
  if (notAcknowledged.length > 0) {
    failures.push(
      `deliveries not acknowledged: ${notAcknowledged.map(([a, n]) => `${n} × ${a}`).join(', ')}`,
    );
  }
  return failures;
}

async function checkStoredOnce(pool: pg.Pool, load: WebhookLoad): Promise<string[]> {
  const failures: string[] = [];
  const sent = load.distinctEvents();
  const { rows: stored } = await pool.query<{ event_id: string; copies: number }>(
    `select event_id, count(*)::int as copies from events where event_id like 'evt\\_upgrade\\_%' group by event_id`,
  );
  const storedIds = new Set(stored.map((row) => row.event_id));
  const missing = [...sent].filter((id) => !storedIds.has(id));
  const duplicated = stored.filter((row) => row.copies > 1);
  const unexpected = stored.filter((row) => !sent.has(row.event_id));
  if (missing.length > 0) failures.push(`${missing.length} events sent were not stored (${missing[0]}, …)`);
  if (duplicated.length > 0) failures.push(`${duplicated.length} events stored more than once`);
  if (unexpected.length > 0) failures.push(`${unexpected.length} events stored that were never sent`);
  return failures;
}

function checkStatus(status: Status): string[] {
  const failures: string[] = [];
  if (status.unprocessed_events > 0) {
    failures.push(`${status.unprocessed_events} deliveries left unprocessed`);
  }
  if (status.failed_events > 0) failures.push(`${status.failed_events} deliveries failed`);
  if (status.quarantined_events > 0) failures.push(`${status.quarantined_events} deliveries quarantined`);
  const failedJobs = Object.entries(status.failed_jobs).filter(([, n]) => n > 0);
  if (failedJobs.length > 0) {
    failures.push(`failed jobs: ${failedJobs.map(([q, n]) => `${q} ${n}`).join(', ')}`);
  }
  if (status.unreconciled_payments > 0) {
    failures.push(`/api/status counts ${status.unreconciled_payments} unreconciled payments`);
  }
  return failures;
}

async function checkReconciled(pool: pg.Pool, load: WebhookLoad): Promise<string[]> {
  const failures: string[] = [];
  // As the crash drill checks it: a reconciliation state that has seen the payment's newest projection.
  const { rows } = await pool.query<{ payments: number; reconciled: number }>(
    `select count(*)::int as payments, count(s.payment_id)::int as reconciled
       from payments p left join payment_reconciliation_states s
            on s.payment_id = p.id and s.reconciled_version = s.projected_version and s.unreconciled_since is null
      where p.id = any($1::text[])`,
    [[...load.payments]],
  );
  const { payments, reconciled } = rows[0] ?? { payments: 0, reconciled: 0 };
  if (payments !== load.payments.size) {
    failures.push(`${load.payments.size - payments} payments sent have no projection`);
  }
  if (reconciled !== payments) failures.push(`${payments - reconciled} payments not reconciled`);
  return failures;
}

/** The 50th and 99th percentiles and the maximum of `values`, in whole milliseconds. */
export function percentiles(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { p50: at(0.5), p99: at(0.99), max: Math.round(sorted.at(-1) ?? 0) };
}
