import type { Page, Queryable } from '../db/pool.ts';
import { rawText, withParsedBody } from './queries.ts';

export type DeliveryDetail = {
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
): Promise<DeliveryDetail | null> {
  const { rows } = await db.query<Omit<DeliveryDetail, 'body'> & { raw_text: string | null }>(
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

export type EventCounts = { received: number; failed: number; quarantined: number; conflicts: number };

/**
 * Counts the deliveries that still need attention, each from a partial index: waiting rows from the claim's
 * index, failed and quarantined ones from their own.
 */
export async function countEventsByStatus(db: Queryable): Promise<EventCounts> {
  const { rows } = await db.query<EventCounts>(
    `select (select count(*) from events where status = 'received')::int as received,
            (select count(*) from events where status = 'failed')::int as failed,
            (select count(*) from events where status = 'quarantined')::int as quarantined,
            (select count(*) from event_conflicts)::int as conflicts`,
  );
  return rows[0] ?? { received: 0, failed: 0, quarantined: 0, conflicts: 0 };
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

/**
 * How long the oldest delivery waiting to be projected has waited, in seconds (0: none waits): the worker's
 * lag behind ingest.
 */
export async function findOldestWaitingDeliverySeconds(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ seconds: number | null }>(
    `select extract(epoch from now() - min(received_at))::float8 as seconds
       from events
      where status = 'received'`,
  );
  return Math.max(0, rows[0]?.seconds ?? 0);
}
