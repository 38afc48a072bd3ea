import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../../db/pool.ts';
import type { Page } from '../../findings/queries.ts';
import { rawText, withParsedBody } from '../../ingest/queries.ts';

export type Overview = {
  deliveries_last_hour: number;
  deliveries_last_5_minutes: number;
  last_delivery_at: Date | null;
  oldest_unprocessed_at: Date | null;
  failed_deliveries: number;
  quarantined_deliveries: number;
  captures_expiring: number;
  disputes_due_within_3_days: number;
  last_fee_sync_at: Date | null;
  last_sweep_at: Date | null;
  last_report_at: Date | null;
  last_report_id: number | null;
};

/** What the console's first page shows about ingest, the worker and the scheduled jobs, in one read. */
export async function readOverview(db: Queryable, now: Date): Promise<Overview> {
  const { rows } = await db.query<Overview>(
    `select (select count(*) from events where received_at >= $1::timestamptz - interval '1 hour')::int as deliveries_last_hour,
            (select count(*) from events where received_at >= $1::timestamptz - interval '5 minutes')::int as deliveries_last_5_minutes,
            (select max(received_at) from events) as last_delivery_at,
            (select min(received_at) from events where status = 'received') as oldest_unprocessed_at,
            (select count(*) from events where status = 'failed')::int as failed_deliveries,
            (select count(*) from events where status = 'quarantined')::int as quarantined_deliveries,
            (select count(*) from findings where code = 'capture_expiring' and status in ('open', 'acknowledged'))::int
              as captures_expiring,
            (select count(*) from disputes where status in ('needs_response', 'under_review')
               and due_date < ($1::timestamptz + interval '3 days')::date)::int as disputes_due_within_3_days,
            (select max(synced_at) from fee_configuration_syncs) as last_fee_sync_at,
            (select max(finished_at) from sweep_runs where status = 'completed') as last_sweep_at,
            (select max(created_at) from reports) as last_report_at,
            (select max(id) from reports where kind = 'daily') as last_report_id`,
    [now],
  );
  return rows[0] as Overview;
}

export type DeliveryFilter = {
  eventId?: string | undefined;
  eventName?: string | undefined;
  accountId?: string | undefined;
  status?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
};

/** Stored deliveries newest first (without bodies), filtered, one page plus one row. */
export async function listDeliveries(db: Queryable, filter: DeliveryFilter, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<Record<string, unknown> & { id: number }>(
    `select id, event_id, event_name, account_id, account_type, source, status, received_at, processed_at
       from events
      where ($1::text is null or event_id = $1::text) and ($2::text is null or event_name = $2::text)
        and ($3::text is null or account_id = $3::text) and ($4::text is null or status = $4::text)
        and ($5::timestamptz is null or received_at >= $5::timestamptz)
        and ($6::timestamptz is null or received_at < $6::timestamptz)
        and ($7::bigint is null or id < $7::bigint) and ($8::bigint is null or id > $8::bigint)
      order by id ${backwards ? 'asc' : 'desc'} limit $9::int`,
    [
      filter.eventId ?? null,
      filter.eventName ?? null,
      filter.accountId ?? null,
      filter.status ?? null,
      filter.from ?? null,
      filter.to ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
    ],
  );
  return rows;
}

export type TimelineEntry = {
  id: number;
  event_id: string | null;
  event_name: string | null;
  source: string;
  status: string;
  received_at: Date;
  body: Record<string, unknown> | null;
  /** The same object state as an earlier entry (another event id or an API snapshot carrying equal data). */
  duplicate: boolean;
  conflicts: number;
};

/** Every delivery and API snapshot about a payment or anything naming it, in arrival order. */
export async function listPaymentTimeline(db: Queryable, paymentId: string): Promise<TimelineEntry[]> {
  const { rows } = await db.query<Omit<TimelineEntry, 'body' | 'duplicate'> & { raw_text: string | null }>(
    `select e.id, e.event_id, e.event_name, e.source, e.status, e.received_at, ${rawText('e')},
            (select count(*) from event_conflicts c where c.event_id = e.event_id)::int as conflicts
       from events e
      where e.payment_id = $1::text
      order by e.received_at, e.id
      limit 500`,
    [paymentId],
  );
  const entries = rows.map(withParsedBody) as Omit<TimelineEntry, 'duplicate'>[];
  const duplicates = duplicateIds(entries);
  return entries.map((entry) => ({ ...entry, duplicate: duplicates.has(entry.id) }));
}

/**
 * The entries whose `data` equals that of an entry stored before them (a lower row id). Bodies are stored
 * as raw bytes only, so this compares parsed bodies here; a cheap key of top-level names and plain values
 * narrows the deep comparisons to likely matches.
 */
function duplicateIds(entries: { id: number; body: Record<string, unknown> | null }[]): Set<number> {
  const earlierByKey = new Map<string, unknown[]>();
  const duplicates = new Set<number>();
  for (const { id, body } of [...entries].sort((a, b) => a.id - b.id)) {
    const data = body?.data;
    if (typeof data !== 'object' || data === null) continue;
    const key = JSON.stringify(
      Object.entries(data)
        .map(([name, value]) => (typeof value === 'object' && value !== null ? [name] : [name, value]))
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const earlier = earlierByKey.get(key);
    if (earlier === undefined) earlierByKey.set(key, [data]);
    else {
      if (earlier.some((other) => isDeepStrictEqual(other, data))) duplicates.add(id);
      earlier.push(data);
    }
  }
  return duplicates;
}

/** The fee configuration a payment fee names, as synced: the console shows the formula's inputs. */
export async function listFeeConfigurationsOfPayment(db: Queryable, paymentId: string) {
  const { rows } = await db.query<Record<string, unknown>>(
    `select c.* from fee_configurations c
      where c.id in (select source_configuration_id from payment_fees where payment_id = $1::text)`,
    [paymentId],
  );
  return rows;
}
