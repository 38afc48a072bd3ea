import { type Pool, withTransaction } from '../db/pool.ts';
import type { FindingDraft } from '../findings/findings.ts';
import { upsertFindings } from '../findings/queries.ts';
import type { Logger } from '../logger.ts';
import { type ApiObject, missedFinding, outcomeOf, readApiObject, snapshotOf } from './compareSnapshot.ts';
import {
  advanceWatermark,
  findAccountType,
  findProjectedStates,
  findWatermark,
  finishSweepRun,
  insertApiSnapshots,
  listPaymentsAwaitingFees,
  recordFeeBreakdownFetch,
  type SweepCounts,
  type SweptResource,
  startSweepRun,
} from './queries.ts';

/** What the sweep needs of the provider client (src/provider/client.ts). */
export type SweepClient = {
  paymentPages(subAccount: string): AsyncGenerator<unknown[]>;
  forwardingRequestPages(subAccount: string, createdAfter: Date): AsyncGenerator<unknown[]>;
  getPayment(id: string, subAccount?: string): Promise<unknown>;
};

export type SweepContext = { pool: Pool; client: SweepClient; log: Logger; now: () => Date };

export type SweepOptions = {
  /** `backfill` imports history: it never raises `event_missed` (Tally was not there to miss anything). */
  kind: 'sweep' | 'backfill';
  /** The oldest `created_at` to list; a sweep reaches back further to its watermark after an outage. */
  since: Date;
  graceMinutes: number;
  onPage?: (counts: SweepCounts) => void;
};

/**
 * Compares a sub account's payments and forwarding requests, as the provider's API lists them, with what
 * Tally projected. A state Tally never saw is stored as an `api` snapshot and projected by the normal
 * worker; one older than the grace period that no webhook brought opens `event_missed`. Page by page, each
 * in one transaction, so a failure keeps what was stored and the next run resumes from the watermark.
 * Idempotent, and safe on several workers at once.
 */
export async function sweepAccount(context: SweepContext, accountId: string, options: SweepOptions) {
  const startedAt = context.now();
  const runId = await startSweepRun(context.pool, accountId, options.kind, startedAt);
  const counts: SweepCounts = { listed: 0, new: 0, newer: 0, unchanged: 0, missed: 0 };
  const accountType = (await findAccountType(context.pool, accountId)) ?? 'live';
  const graceEnd = new Date(startedAt.getTime() - options.graceMinutes * 60_000);
  try {
    for (const resource of ['payments', 'forwarding_requests'] as const) {
      const watermark =
        options.kind === 'sweep' ? await findWatermark(context.pool, accountId, resource) : null;
      const since = watermark && watermark < options.since ? watermark : options.since;
      const pages =
        resource === 'payments'
          ? context.client.paymentPages(accountId)
          : context.client.forwardingRequestPages(accountId, since);
      for await (const page of pages) {
        const objects = page.map(readApiObject);
        // Newest first: objects created before the window end the listing.
        const inWindow = objects.filter((object) => object.createdAt === null || object.createdAt >= since);
        await compareAndStore(context, resource, inWindow, {
          accountId,
          accountType,
          graceEnd,
          options,
          counts,
        });
        options.onPage?.({ ...counts });
        if (inWindow.length < objects.length) break;
      }
      if (options.kind === 'sweep') await advanceWatermark(context.pool, accountId, resource, startedAt);
    }
    await fetchMissingFeeBreakdowns(context, accountId, {
      accountType,
      since: options.since,
      graceEnd,
      counts,
    });
    await finishSweepRun(context.pool, runId, { counts, error: null, at: context.now() });
    context.log.info({ accountId, kind: options.kind, ...counts }, 'missed-event sweep of an account done');
    return counts;
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    await finishSweepRun(context.pool, runId, { counts, error, at: context.now() });
    throw err;
  }
}

type PageContext = {
  accountId: string;
  accountType: string;
  graceEnd: Date;
  options: SweepOptions;
  counts: SweepCounts;
};

async function compareAndStore(
  context: SweepContext,
  resource: SweptResource,
  objects: ApiObject[],
  page: PageContext,
) {
  const ids = objects.flatMap((object) => (object.id === null ? [] : [object.id]));
  const projected = await findProjectedStates(context.pool, resource, ids);
  const toStore: ApiObject[] = [];
  const missed = new Map<string, FindingDraft>();
  for (const object of objects) {
    const state = object.id === null ? undefined : projected.get(object.id);
    const outcome = outcomeOf(object, state);
    page.counts.listed += 1;
    page.counts[outcome] += 1;
    if (outcome !== 'unchanged') toStore.push(object);
    const finding =
      page.options.kind === 'sweep'
        ? missedFinding(resource, object, state, { accountId: page.accountId, graceEnd: page.graceEnd })
        : null;
    if (finding) missed.set(finding.subjectId, finding);
  }
  page.counts.missed += missed.size;
  await storeSnapshots(context, resource, toStore, page, [...missed.values()]);
}

async function storeSnapshots(
  context: SweepContext,
  resource: SweptResource,
  objects: ApiObject[],
  page: Pick<PageContext, 'accountId' | 'accountType'>,
  missed: FindingDraft[],
) {
  if (objects.length === 0 && missed.length === 0) return;
  const fetchedAt = context.now();
  const snapshots = objects.map((object) =>
    snapshotOf(resource, object, { accountId: page.accountId, accountType: page.accountType, fetchedAt }),
  );
  // The snapshots (stored as received: the worker projects them as it does deliveries) and the page's
  // findings commit together or not at all.
  await withTransaction(context.pool, async (client) => {
    await insertApiSnapshots(client, snapshots);
    const context = {
      scope: 'missed-event-sweep',
      accountId: page.accountId,
      currency: null,
      now: fetchedAt,
    };
    await upsertFindings(client, [{ context, findings: missed }]);
  });
}

/** A payment projected without its fee breakdown after the grace period is fetched once with get-payment. */
async function fetchMissingFeeBreakdowns(
  context: SweepContext,
  accountId: string,
  window: { accountType: string; since: Date; graceEnd: Date; counts: SweepCounts },
) {
  const ids = await listPaymentsAwaitingFees(context.pool, accountId, window.since, window.graceEnd);
  for (const id of ids) {
    const object = readApiObject(await context.client.getPayment(id, accountId));
    await storeSnapshots(context, 'payments', [object], { accountId, accountType: window.accountType }, []);
    await recordFeeBreakdownFetch(context.pool, id, context.now());
  }
}
