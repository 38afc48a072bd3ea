import type { Queryable } from '../db/pool.ts';
import { historyOfSuperseded } from '../findings/queries.ts';

export type NewEvent = {
  eventId: string | null;
  eventName: string | null;
  accountId: string | null;
  accountType: string | null;
  headers: Record<string, string>;
  rawBody: Buffer;
  bodySha256: Buffer;
  quarantineReason: string | null;
  receivedAt: Date;
};

export type StoredEvent = { inserted: boolean; id: number; event_id: string | null; body_sha256: Buffer };

/**
 * Inserts deliveries in one statement, in order, skipping any whose event id (or, quarantined, whose body)
 * is already stored, including by an earlier one of the same batch. Returns the rows inserted and, in the
 * same round trip, the stored row of every other event id that was already committed when the statement
 * began (a redelivery, the common case). An id stored by a transaction that committed while this statement
 * ran is in neither list: `findStoredBodyHashes` reads it afterwards. The batch's bodies travel as one binary
 * parameter (pg sends a Buffer as raw bytes): no base64 and no array escaping on either side; each row takes
 * its bytes by offset. The raw bytes are the only copy of the body (see `rawText`).
 */
export async function insertEvents(db: Queryable, events: NewEvent[]): Promise<StoredEvent[]> {
  let offset = 1; // substring() counts bytes from 1
  const starts = events.map((event) => {
    const start = offset;
    offset += event.rawBody.length;
    return start;
  });
  const { rows } = await db.query<StoredEvent>(
    `with inserted as (
       insert into events (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256,
                           status, quarantine_reason, received_at)
       select e.event_id, e.event_name, e.account_id, e.account_type, e.headers,
              substring($10::bytea from e.start for e.length), decode(e.body_sha256, 'hex'),
              case when e.quarantine_reason is null then 'received' else 'quarantined' end,
              e.quarantine_reason, e.received_at
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::int[], $7::int[],
                     $8::text[], $9::text[], $11::timestamptz[])
              with ordinality as e(event_id, event_name, account_id, account_type, headers, start, length,
                                   body_sha256, quarantine_reason, received_at, position)
        order by e.position
       on conflict do nothing
       returning id, event_id, body_sha256
     )
     select true as inserted, id, event_id, body_sha256 from inserted
     union all
     select false, id, event_id, body_sha256 from events where event_id = any($1::text[])`,
    [
      events.map((event) => event.eventId),
      events.map((event) => event.eventName),
      events.map((event) => event.accountId),
      events.map((event) => event.accountType),
      events.map((event) => JSON.stringify(event.headers)),
      starts,
      events.map((event) => event.rawBody.length),
      events.map((event) => event.bodySha256.toString('hex')),
      events.map((event) => event.quarantineReason),
      Buffer.concat(events.map((event) => event.rawBody)),
      events.map((event) => event.receivedAt),
    ],
  );
  return rows;
}

/**
 * A delivery's body is stored once, as the raw bytes received (the signature's evidence); readers select this
 * column (`raw_text`) and parse it with `withParsedBody`: in Node, so one body Postgres's jsonb would refuse
 * cannot fail a whole query. Null for a quarantined delivery (its bytes may not be JSON) and a purged one.
 */
export const rawText = (alias: string) =>
  `case when ${alias}.body_purged_at is null and ${alias}.status <> 'quarantined'
        then convert_from(${alias}.raw_body, 'utf8') end as raw_text`;

/**
 * A row read with `rawText`, `raw_text` replaced by `body`: the raw text parsed past a byte order mark
 * (JSON.parse refuses one; the webhook's decoder dropped it before parsing too), or null without one.
 */
export function withParsedBody<Row extends { raw_text: string | null }>(
  row: Row,
): Omit<Row, 'raw_text'> & { body: unknown } {
  const { raw_text, ...rest } = row;
  return { ...rest, body: raw_text === null ? null : JSON.parse(raw_text.replace(/^\uFEFF/, '')) };
}

/** The body hash stored for each of these event ids. */
export async function findStoredBodyHashes(db: Queryable, eventIds: string[]): Promise<Map<string, Buffer>> {
  const { rows } = await db.query<{ event_id: string; body_sha256: Buffer }>(
    'select event_id, body_sha256 from events where event_id = any($1::text[])',
    [eventIds],
  );
  return new Map(rows.map((row) => [row.event_id, row.body_sha256]));
}

/** Keeps bodies delivered under an already stored event id with different bytes; each distinct one once. */
export async function insertEventConflicts(db: Queryable, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `insert into event_conflicts (event_id, headers, raw_body, body_sha256, received_at)
     select e.event_id, e.headers, decode(e.raw_body, 'base64'), decode(e.body_sha256, 'hex'), e.received_at
       from unnest($1::text[], $2::jsonb[], $3::text[], $4::text[], $5::timestamptz[])
            as e(event_id, headers, raw_body, body_sha256, received_at)
     on conflict do nothing`,
    [
      events.map((event) => event.eventId),
      events.map((event) => JSON.stringify(event.headers)),
      events.map((event) => event.rawBody.toString('base64')),
      events.map((event) => event.bodySha256.toString('hex')),
      events.map((event) => event.receivedAt),
    ],
  );
}

// Times in finding details read like JSON.stringify's: UTC, always three decimals (jsonb would trim zeros).
const ISO = (column: string) => `to_char(${column} at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Opens (or refreshes) `event_id_conflict` for events whose id arrived again with a different body: the
 * stored body's hash and arrival time, and every conflicting one's. Run in the transaction that stored the
 * conflict, so nobody is told of a conflict that was rolled back. An accepted one whose newest conflicting
 * body changed is closed first, as reconciliation does: a new open finding follows.
 */
export async function openEventConflictFindings(db: Queryable, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query(
    `with newest as (
       select distinct on (event_id) event_id, to_jsonb(encode(body_sha256, 'hex')) as actual
         from event_conflicts where event_id = any($1::text[]) order by event_id, id desc
     ), superseded as (
       update findings f set status = 'resolved', resolved_at = now()
         from newest n
        where f.status = 'accepted' and f.code = 'event_id_conflict' and f.subject_type = 'event'
          and f.subject_id = n.event_id and f.actual is distinct from n.actual
       returning f.id)
     ${historyOfSuperseded('now()')}`,
    [[...new Set(eventIds)]],
  );
  await db.query(
    `with conflicting as (
       select e.event_id, e.account_id, e.body_sha256, e.received_at,
              jsonb_agg(jsonb_build_object('body_sha256', encode(c.body_sha256, 'hex'), 'received_at', ${ISO('c.received_at')})
                        order by c.id) as bodies,
              max(c.received_at) as last_received_at
         from events e
         join event_conflicts c on c.event_id = e.event_id
        where e.event_id = any($1::text[])
        group by e.id
        order by e.event_id
     )
     insert into findings (code, severity, subject_type, subject_id, account_id, expected, actual, details, scope,
                           first_seen_at, last_seen_at)
     select 'event_id_conflict', 'warning', 'event', event_id, account_id,
            to_jsonb(encode(body_sha256, 'hex')), bodies -> -1 -> 'body_sha256',
            jsonb_build_object('stored', jsonb_build_object('body_sha256', encode(body_sha256, 'hex'),
                                                            'received_at', ${ISO('received_at')}),
                               'conflicting', bodies),
            'ingest:' || event_id, last_received_at, last_received_at
       from conflicting
     on conflict (code, subject_type, subject_id) where status <> 'resolved' do update set
       actual = excluded.actual, details = excluded.details, last_seen_at = excluded.last_seen_at`,
    [[...new Set(eventIds)]],
  );
}

/**
 * Opens `event_quarantined` for stored deliveries that failed envelope validation. The subject is the
 * stored delivery (its row id: a quarantined body may have no usable event id); details say why.
 */
export async function openQuarantineFindings(db: Queryable, deliveryIds: number[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db.query(
    `insert into findings (code, severity, subject_type, subject_id, expected, actual, details, scope,
                           first_seen_at, last_seen_at)
     select 'event_quarantined', 'error', 'event', e.id::text, null, to_jsonb(e.quarantine_reason),
            jsonb_build_object('delivery_id', e.id, 'reason', e.quarantine_reason,
                               'body_sha256', encode(e.body_sha256, 'hex'), 'received_at', ${ISO('e.received_at')}),
            'ingest:' || e.id, e.received_at, e.received_at
       from events e
      where e.id = any($1::bigint[]) and e.status = 'quarantined'
      order by e.id
     on conflict do nothing`,
    [deliveryIds],
  );
}
