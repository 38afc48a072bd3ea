import { type Pool, pingDatabase } from '../db/pool.ts';
import { countOpenFindingsByCode, type OpenFindingCount } from '../findings/readQueries.ts';
import {
  countEventsByStatus,
  type EventCounts,
  findOldestWaitingDeliverySeconds,
} from '../ingest/deliveryReadQueries.ts';
import { countAlertsByStatus } from '../ops/queries.ts';
import { countUnknownValuesByField } from '../projection/readQueries.ts';
import type { Boss } from '../queue/boss.ts';
import { countJobsByQueue, type JobCounts } from '../queue/jobCounts.ts';
import { type ReconciliationLag, summarizeReconciliationLag } from '../reconciliation/stateQueries.ts';
import { type SubscriptionHealth, summarizeSubscriptions } from '../subscriptions/attemptQueries.ts';
import { type SweepSummary, summarizeSweeps } from '../sweep/readQueries.ts';

/** What one collection read from the database; a read that failed is null (its gauges keep their last value). */
export type DatabaseGauges = {
  databaseUp: boolean;
  events: EventCounts | null;
  alerts: Map<string, number> | null;
  unknownValues: Map<string, number> | null;
  sweeps: SweepSummary | null;
  lag: ReconciliationLag | null;
  jobs: JobCounts | null;
  findings: OpenFindingCount[] | null;
  oldestWaitingSeconds: number | null;
  subscriptions: SubscriptionHealth[] | null;
};

const UNREAD: DatabaseGauges = {
  databaseUp: false,
  events: null,
  alerts: null,
  unknownValues: null,
  sweeps: null,
  lag: null,
  jobs: null,
  findings: null,
  oldestWaitingSeconds: null,
  subscriptions: null,
};

const orNull = <T>(read: Promise<T>): Promise<T | null> => read.catch(() => null);

/** Every database read the scrape reports, one after another: the metrics pool is small on purpose. */
async function collectDatabaseGauges(pool: Pool, boss: Boss): Promise<DatabaseGauges> {
  const databaseUp = await pingDatabase(pool).then(
    () => true,
    () => false,
  );
  // Down, each read would wait out its own connection timeout in turn: the scrape answers at once instead.
  if (!databaseUp) return { ...UNREAD, databaseUp };
  return {
    databaseUp,
    events: await orNull(countEventsByStatus(pool)),
    alerts: await orNull(countAlertsByStatus(pool)),
    unknownValues: await orNull(countUnknownValuesByField(pool)),
    sweeps: await orNull(summarizeSweeps(pool)),
    lag: await orNull(summarizeReconciliationLag(pool)),
    // pg-boss counts on its own pool, from the queue rows its monitor keeps (one small read per queue).
    jobs: await orNull(countJobsByQueue(boss)),
    findings: await orNull(countOpenFindingsByCode(pool)),
    oldestWaitingSeconds: await orNull(findOldestWaitingDeliverySeconds(pool)),
    subscriptions: await orNull(summarizeSubscriptions(pool, new Date())),
  };
}

/**
 * A read that is done at most once per `freshForMs`: a call within that time gets the last result, and every
 * call that arrives while the read runs waits for that one. However many clients scrape, the work is done once.
 */
export function cachedRead<T>(read: () => Promise<T>, freshForMs: number): () => Promise<T> {
  let last: { at: number; value: T } | null = null;
  let inFlight: Promise<T> | null = null;
  return () => {
    if (last && performance.now() - last.at < freshForMs) return Promise.resolve(last.value);
    inFlight ??= read()
      .then((value) => {
        last = { at: performance.now(), value };
        return value;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
}

/** The database gauges, one collection for every metric of a scrape (prom-client collects them all at once). */
export function sharedDatabaseGauges(pool: Pool, boss: Boss): () => Promise<DatabaseGauges> {
  return cachedRead(() => collectDatabaseGauges(pool, boss), 0);
}
