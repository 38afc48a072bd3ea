import type { Queryable } from '../db/pool.ts';
import type { Page } from '../findings/queries.ts';
import { rawText, withParsedBody } from '../ingest/queries.ts';
import type { Boss } from '../queue/boss.ts';
import { queueNames } from '../queue/queues.ts';

export type StoredEvent = {
  id: number;
  event_id: string | null;
  event_name: string | null;
  account_id: string | null;
  account_type: string | null;
  status: string;
  /** `webhook`, or `api`: a snapshot the missed-event sweep or backfill fetched. */
  source: 'webhook' | 'api';
  quarantine_reason: string | null;
  error: string | null;
  headers: Record<string, string>;
  body: unknown;
  received_at: Date;
  processed_at: Date | null;
  /** When retention purged the body (then `body` is null); null while kept. */
  body_purged_at: Date | null;
  /** The payment the delivery names, recorded by the worker when it took it (null before, or if none). */
  payment_id: string | null;
  conflicts: { received_at: string; body_sha256: string }[];
};

/**
 * One delivery, by its provider event id (the API) or its row id (the console, which also reaches
 * quarantined deliveries without one), with the bodies that later conflicted with it.
 */
export async function findEvent(
  db: Queryable,
  key: { eventId: string } | { rowId: number },
): Promise<StoredEvent | null> {
  const { rows } = await db.query<Omit<StoredEvent, 'body'> & { raw_text: string | null }>(
    `select e.id, e.event_id, e.event_name, e.account_id, e.account_type, e.status, e.source, e.quarantine_reason,
            e.error, e.headers, ${rawText('e')}, e.received_at, e.processed_at,
            e.body_purged_at, e.payment_id,
            coalesce((select json_agg(json_build_object('received_at', c.received_at,
                                                        'body_sha256', encode(c.body_sha256, 'hex'))
                                      order by c.id)
                        from event_conflicts c where c.event_id = e.event_id), '[]') as conflicts
       from events e
      where ${'eventId' in key ? 'e.event_id = $1::text' : 'e.id = $1::bigint'}`,
    ['eventId' in key ? key.eventId : key.rowId],
  );
  return rows[0] === undefined ? null : withParsedBody(rows[0]);
}

// Ordering bookkeeping, not facts about the payment.
const INTERNAL = `'{snapshot,event_row_id,status_terminal,status_rank,status_updated_at,status_event_row_id,fees_updated_at,fees_event_row_id,returned_fees_updated_at,returned_fees_event_row_id}'::text[]`;

export type PaymentDetail = {
  payment: Record<string, unknown>;
  fees: Record<string, unknown>[];
  refunds: Record<string, unknown>[];
  checkout: Record<string, unknown> | null;
  forwarding_requests: Record<string, unknown>[];
  disputes: Record<string, unknown>[];
};

/** A payment with its fees, refunds (each with its returned fees), checkout, forwarding requests and disputes. */
export async function findPaymentDetail(db: Queryable, id: string): Promise<PaymentDetail | null> {
  const { rows } = await db.query<PaymentDetail>(
    `select to_jsonb(p) - ${INTERNAL} as payment,
            (select coalesce(jsonb_agg(to_jsonb(f) - 'payment_id' order by f.type, f.id), '[]')
               from payment_fees f where f.payment_id = p.id) as fees,
            (select coalesce(jsonb_agg((to_jsonb(r) - ${INTERNAL}) || jsonb_build_object('returned_fees',
                      (select coalesce(jsonb_agg(to_jsonb(rf) - 'refund_id' order by rf.id), '[]')
                         from returned_fees rf where rf.refund_id = r.id))
                    order by r.created_at, r.id), '[]')
               from refunds r where r.payment_id = p.id) as refunds,
            (select to_jsonb(c) - ${INTERNAL}
               from checkouts c where c.id = p.checkout_id or c.payment_id = p.id
              order by c.id limit 1) as checkout,
            (select coalesce(jsonb_agg(to_jsonb(w) - ${INTERNAL} order by w.created_at, w.id), '[]')
               from forwarding_requests w where w.payment_method_id = p.payment_method_id) as forwarding_requests,
            (select coalesce(jsonb_agg(to_jsonb(d) - ${INTERNAL} - 'row_id' order by d.created_at, d.id), '[]')
               from disputes d where d.payment_id = p.id) as disputes
       from payments p
      where p.id = $1::text`,
    [id],
  );
  return rows[0] ?? null;
}

export type DisputeFilter = { status?: string | undefined; accountId?: string | undefined };

/**
 * Disputes newest first (by when Tally first projected them), filtered, one page plus one row. `id` is
 * the row number the cursor pages by; `dispute_id` is the provider's `dp_` id.
 */
export async function listDisputes(db: Queryable, filter: DisputeFilter, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<Record<string, unknown> & { id: number; dispute_id: string }>(
    `select row_id as id, id as dispute_id, payment_id, account_id, account_type, amount, currency, reason,
            to_char(due_date, 'YYYY-MM-DD') as due_date, status, created_at, updated_at
       from disputes
      where ($1::text is null or status = $1::text)
        and ($2::text is null or account_id = $2::text)
        and ($3::bigint is null or row_id < $3::bigint) and ($4::bigint is null or row_id > $4::bigint)
      order by row_id ${backwards ? 'asc' : 'desc'}
      limit $5::int`,
    [filter.status ?? null, filter.accountId ?? null, page.afterId, page.beforeId, page.limit + 1],
  );
  return rows;
}

export type EventCounts = { received: number; failed: number; quarantined: number; conflicts: number };

/** Counts the deliveries that still need attention; reads only the partial index of unprocessed rows. */
export async function countEventsByStatus(db: Queryable): Promise<EventCounts> {
  const { rows } = await db.query<EventCounts>(
    `select count(*) filter (where status = 'received')::int as received,
            count(*) filter (where status = 'failed')::int as failed,
            count(*) filter (where status = 'quarantined')::int as quarantined,
            (select count(*) from event_conflicts)::int as conflicts
       from events
      where status <> 'processed'`,
  );
  return rows[0] ?? { received: 0, failed: 0, quarantined: 0, conflicts: 0 };
}

export type JobCounts = Record<string, { queued: number; failed: number }>;

/**
 * Per queue, jobs waiting (created or retrying) and jobs failed for good (retries exhausted, or failed by
 * pg-boss's supervisor), as pg-boss last counted them: its monitor recounts on each supervise pass
 * (src/queue/boss.ts). Failed jobs are kept until its retention deletes them (7 days): a rolling count.
 */
export async function countJobsByQueue(boss: Boss): Promise<JobCounts> {
  const stats = await Promise.all(queueNames.map((name) => boss.getQueueStats(name)));
  return Object.fromEntries(
    queueNames.map((name, index) => [
      name,
      { queued: stats[index]?.[0]?.queuedCount ?? 0, failed: stats[index]?.[0]?.failedCount ?? 0 },
    ]),
  );
}

export type FeeCheckSummary = {
  lastFeeSyncAt: Date | null;
  unverifiedPayments: number;
  overriddenFees: number;
};

/** When fee configurations were last synced, and how many fee checks could not be or were not made. */
export async function summarizeFeeChecks(db: Queryable): Promise<FeeCheckSummary> {
  const { rows } = await db.query<FeeCheckSummary>(
    `select (select max(synced_at) from fee_configuration_syncs) as "lastFeeSyncAt",
            (select count(*) from payment_reconciliations where unverified > 0)::int as "unverifiedPayments",
            (select coalesce(sum(overrides), 0) from payment_reconciliations)::int as "overriddenFees"`,
  );
  return rows[0] ?? { lastFeeSyncAt: null, unverifiedPayments: 0, overriddenFees: 0 };
}

/** `{field: {value: deliveries}}`: what the provider sent that Tally keeps but does not know. */
export async function summarizeUnknownValues(db: Queryable): Promise<Record<string, Record<string, number>>> {
  const { rows } = await db.query<{ field: string; value: string; deliveries: number }>(
    `select field, value, deliveries from unknown_values order by field, deliveries desc, value limit 1000`,
  );
  const summary: Record<string, Record<string, number>> = {};
  for (const row of rows) summary[row.field] = { ...summary[row.field], [row.value]: row.deliveries };
  return summary;
}

/** Deliveries carrying an unknown value, per field: the metric, which never labels by value. */
export async function countUnknownValuesByField(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ field: string; deliveries: number }>(
    `select field, sum(deliveries)::bigint as deliveries from unknown_values group by field`,
  );
  return new Map(rows.map((row) => [row.field, row.deliveries]));
}

export type SweepSummary = {
  lastSweepAt: Date | null;
  lastSweepSeconds: number | null;
  missedEventsOpen: number;
  /** Objects the sweeps listed, by outcome, summed over every run: the `tally_sweep_objects_total` counter. */
  objects: { listed: number; new: number; newer: number; unchanged: number; missed: number };
};

/** The missed-event sweep as people and Prometheus see it. */
export async function summarizeSweeps(db: Queryable): Promise<SweepSummary> {
  const { rows } = await db.query<{
    last_sweep_at: Date | null;
    last_sweep_seconds: number | null;
    missed_events_open: number;
    listed: number;
    new: number;
    newer: number;
    unchanged: number;
    missed: number;
  }>(
    `select (select max(finished_at) from sweep_runs where status = 'completed' and kind = 'sweep') as last_sweep_at,
            (select extract(epoch from finished_at - started_at)::float8 from sweep_runs
              where status = 'completed' and kind = 'sweep' order by finished_at desc limit 1) as last_sweep_seconds,
            (select count(*)::int from findings where code = 'event_missed' and status in ('open', 'acknowledged')) as missed_events_open,
            coalesce(sum(listed), 0)::bigint as listed, coalesce(sum(new), 0)::bigint as new,
            coalesce(sum(newer), 0)::bigint as newer, coalesce(sum(unchanged), 0)::bigint as unchanged,
            coalesce(sum(missed), 0)::bigint as missed
       from sweep_runs`,
  );
  const row = rows[0];
  return {
    lastSweepAt: row?.last_sweep_at ?? null,
    lastSweepSeconds: row?.last_sweep_seconds ?? null,
    missedEventsOpen: row?.missed_events_open ?? 0,
    objects: {
      listed: row?.listed ?? 0,
      new: row?.new ?? 0,
      newer: row?.newer ?? 0,
      unchanged: row?.unchanged ?? 0,
      missed: row?.missed ?? 0,
    },
  };
}
