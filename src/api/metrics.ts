import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Pool } from '../db/pool.ts';
import type { Reads } from '../db/readPool.ts';
import type { Boss } from '../queue/boss.ts';
import { cachedRead, sharedDatabaseGauges } from './metricsGauges.ts';
import { registerReplicaMetrics } from './replicaMetrics.ts';

export type Metrics = ReturnType<typeof createMetrics>;

/** How long one collection answers scrapes: a few seconds, well under any scrape interval. */
export const METRICS_FRESH_FOR_MS = 5_000;

/**
 * One registry per app, so several apps in one process (tests) never share counters. `pool` is the metrics'
 * own small pool (web.ts), never the one that stores webhooks: a scrape neither waits on ingest nor delays it.
 * The exposition is collected and rendered at most once per `freshForMs` (`exposition`): rendering costs the
 * event loop that acknowledges webhooks too, so 50 clients scraping in a loop cost one render per interval.
 * `reads`, with a replica configured, adds its lag gauges (replicaMetrics.ts).
 */
export function createMetrics(
  pool: Pool,
  boss: Boss,
  { freshForMs = METRICS_FRESH_FOR_MS, reads }: { freshForMs?: number; reads?: Reads } = {},
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (reads) registerReplicaMetrics(registry, reads);
  const readGauges = sharedDatabaseGauges(pool, boss);
  return {
    registry,
    /** The text a scrape answers, at most `freshForMs` old. */
    exposition: cachedRead(() => registry.metrics(), freshForMs),
    deliveries: new Counter({
      name: 'tally_webhook_deliveries_total',
      help: 'Webhook deliveries by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    ackSeconds: new Histogram({
      name: 'tally_webhook_ack_seconds',
      help: 'Time from request to acknowledgement of POST /webhooks',
      labelNames: ['status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    events: new Gauge({
      name: 'tally_events',
      help: 'Stored deliveries that are not processed, by status (received, failed, quarantined)',
      labelNames: ['status'] as const,
      registers: [registry],
      async collect() {
        const counts = (await readGauges()).events;
        if (!counts) return;
        this.set({ status: 'received' }, counts.received);
        this.set({ status: 'failed' }, counts.failed);
        this.set({ status: 'quarantined' }, counts.quarantined);
      },
    }),
    alerts: new Gauge({
      name: 'tally_alerts',
      help: 'Ops alerts by delivery status (pending, sent, failed, logged)',
      labelNames: ['status'] as const,
      registers: [registry],
      async collect() {
        const counts = (await readGauges()).alerts;
        if (!counts) return;
        this.reset();
        for (const [status, count] of counts) this.set({ status }, count);
      },
    }),
    unknownValues: new Gauge({
      name: 'tally_unknown_values',
      help: 'Deliveries carrying a value the seed does not name, per field (the values are in GET /api/status)',
      labelNames: ['field'] as const,
      registers: [registry],
      async collect() {
        const counts = (await readGauges()).unknownValues;
        if (!counts) return;
        this.reset();
        for (const [field, count] of counts) this.set({ field }, count);
      },
    }),
    sweepObjects: new Counter({
      name: 'tally_sweep_objects_total',
      help: 'Objects the missed-event sweep listed, by outcome (new, newer, unchanged; missed opened event_missed)',
      labelNames: ['outcome'] as const,
      registers: [registry],
      async collect() {
        // Summed from the sweeps' own records, so every web process reports what every worker swept.
        const summary = (await readGauges()).sweeps;
        if (!summary) return;
        this.reset();
        for (const outcome of ['new', 'newer', 'unchanged', 'missed'] as const)
          this.inc({ outcome }, summary.objects[outcome]);
      },
    }),
    sweepSeconds: new Gauge({
      name: 'tally_sweep_duration_seconds',
      help: 'How long the last complete missed-event sweep of an account took',
      registers: [registry],
      async collect() {
        const summary = (await readGauges()).sweeps;
        if (summary?.lastSweepSeconds != null) this.set(summary.lastSweepSeconds);
      },
    }),
    queueDepth: new Gauge({
      name: 'tally_queue_depth',
      help: 'Jobs waiting per pg-boss queue',
      labelNames: ['queue'] as const,
      registers: [registry],
      async collect() {
        // With the database down the scrape still answers; the gauge just goes empty.
        const { jobs } = await readGauges();
        this.reset();
        for (const [queue, counts] of Object.entries(jobs ?? {})) this.set({ queue }, counts.queued);
      },
    }),
    failedJobs: new Gauge({
      name: 'tally_failed_jobs',
      help: 'Jobs failed for good per pg-boss queue (retries exhausted), over its 7-day retention',
      labelNames: ['queue'] as const,
      registers: [registry],
      async collect() {
        const { jobs } = await readGauges();
        if (!jobs) return;
        this.reset();
        for (const [queue, counts] of Object.entries(jobs)) this.set({ queue }, counts.failed);
      },
    }),
    unreconciledPayments: new Gauge({
      name: 'tally_unreconciled_payments',
      help: 'Payments whose newest projection state no reconciliation has seen yet',
      registers: [registry],
      async collect() {
        const { lag } = await readGauges();
        if (lag) this.set(lag.unreconciledPayments);
      },
    }),
    databaseUp: new Gauge({
      name: 'tally_database_up',
      help: 'Whether the database answered this scrape (1) or not (0)',
      registers: [registry],
      async collect() {
        this.set((await readGauges()).databaseUp ? 1 : 0);
      },
    }),
    oldestWaitingDelivery: new Gauge({
      name: 'tally_oldest_received_seconds',
      help: 'How long the oldest stored delivery has waited to be projected (0: none waits): the worker lag',
      registers: [registry],
      async collect() {
        const seconds = (await readGauges()).oldestWaitingSeconds;
        if (seconds !== null) this.set(seconds);
      },
    }),
    openFindings: new Gauge({
      name: 'tally_findings_open',
      help: 'Findings to work (status open or acknowledged) by code and severity (see docs/findings.md)',
      labelNames: ['code', 'severity', 'status'] as const,
      registers: [registry],
      async collect() {
        const counts = (await readGauges()).findings;
        if (!counts) return;
        this.reset();
        for (const { code, severity, status, open } of counts) this.inc({ code, severity, status }, open);
      },
    }),
    findingsAtStake: new Gauge({
      name: 'tally_findings_at_stake_cents',
      help: 'Integer cents that findings to work (open or acknowledged) put at stake, by code and currency',
      labelNames: ['code', 'currency'] as const,
      registers: [registry],
      async collect() {
        const counts = (await readGauges()).findings;
        if (!counts) return;
        this.reset();
        for (const { code, currency, at_stake } of counts) this.inc({ code, currency }, at_stake);
      },
    }),
    oldestUnreconciled: new Gauge({
      name: 'tally_oldest_unreconciled_seconds',
      help: 'How long the oldest unreconciled payment has waited for a reconciliation of its newest state (0: none)',
      registers: [registry],
      async collect() {
        const { lag } = await readGauges();
        if (lag) this.set(lag.oldestUnreconciledSeconds ?? 0);
      },
    }),
    subscriptionLag: new Gauge({
      name: 'tally_subscription_lag_seconds',
      help: "Age of each subscription's oldest change not yet delivered (0: none waits); grows while it is disabled",
      labelNames: ['subscription'] as const,
      registers: [registry],
      async collect() {
        const subscriptions = (await readGauges()).subscriptions;
        if (!subscriptions) return;
        this.reset();
        for (const entry of subscriptions)
          this.set({ subscription: `sub_${entry.subscription_id}` }, entry.lag_seconds);
      },
    }),
    subscriptionEnabled: new Gauge({
      name: 'tally_subscription_enabled',
      help: 'Whether each subscription sends (1) or is disabled (0), by hand or after failing for 3 days',
      labelNames: ['subscription'] as const,
      registers: [registry],
      async collect() {
        const subscriptions = (await readGauges()).subscriptions;
        if (!subscriptions) return;
        this.reset();
        for (const entry of subscriptions)
          this.set({ subscription: `sub_${entry.subscription_id}` }, entry.enabled ? 1 : 0);
      },
    }),
    subscriptionAttempts: new Counter({
      name: 'tally_subscription_attempts_total',
      help: 'Attempts to post a change to each subscription, by outcome (delivered, http_error, redirect, timeout, network_error, refused_address)',
      labelNames: ['subscription', 'outcome'] as const,
      registers: [registry],
      async collect() {
        // Counted in the database by every worker, so each web process reports the same totals.
        const subscriptions = (await readGauges()).subscriptions;
        if (!subscriptions) return;
        this.reset();
        for (const entry of subscriptions)
          for (const [outcome, attempts] of Object.entries(entry.attempts))
            this.inc({ subscription: `sub_${entry.subscription_id}`, outcome }, attempts ?? 0);
      },
    }),
  };
}
