import type { Queryable } from '../db/pool.ts';

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

export type EventInsertResult = {
  inserted: boolean;
  id: number;
  event_id: string | null;
  body_sha256: Buffer;
};

/**
 * Inserts deliveries in one statement, in order, skipping any whose event id (or, quarantined, whose body)
 * is already stored, including by an earlier one of the same batch. Returns the rows inserted and, in the
 * same round trip, the stored row of every other event id that was already committed when the statement
 * began (a redelivery, the common case). An id stored by a transaction that committed while this statement
 * ran is in neither list: `findStoredBodyHashes` reads it afterwards. The batch's bodies travel as one binary
 * parameter (pg sends a Buffer as raw bytes): no base64 and no array escaping on either side; each row takes
 * its bytes by offset. The raw bytes are the only copy of the body (see `rawText`).
 */
export async function insertEvents(db: Queryable, events: NewEvent[]): Promise<EventInsertResult[]> {
  let offset = 1; // substring() counts bytes from 1
  const starts = events.map((event) => {
    const start = offset;
    offset += event.rawBody.length;
    return start;
  });
  const { rows } = await db.query<EventInsertResult>(
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

export type EventConflict = {
  event_id: string;
  account_id: string | null;
  body_sha256: Buffer;
  received_at: Date;
  /** Every conflicting body, oldest first. */
  conflicting: { body_sha256: Buffer; received_at: Date }[];
};

/** Events whose id arrived again with other bytes: the stored body's hash and time, and every conflicting one's. */
export async function listEventConflicts(db: Queryable, eventIds: string[]): Promise<EventConflict[]> {
  const { rows } = await db.query<Omit<EventConflict, 'conflicting'> & { hashes: Buffer[]; times: Date[] }>(
    `select e.event_id, e.account_id, e.body_sha256, e.received_at,
            array_agg(c.body_sha256 order by c.id) as hashes, array_agg(c.received_at order by c.id) as times
       from events e join event_conflicts c on c.event_id = e.event_id
      where e.event_id = any($1::text[])
      group by e.id
      order by e.event_id`,
    [[...new Set(eventIds)]],
  );
  return rows.map(({ hashes, times, ...event }) => ({
    ...event,
    conflicting: hashes.map((hash, index) => ({ body_sha256: hash, received_at: times[index] as Date })),
  }));
}

export type QuarantinedDelivery = {
  id: number;
  quarantine_reason: string | null;
  body_sha256: Buffer;
  received_at: Date;
};

/** Stored deliveries that failed envelope validation, among these. */
export async function listQuarantinedDeliveries(
  db: Queryable,
  deliveryIds: number[],
): Promise<QuarantinedDelivery[]> {
  const { rows } = await db.query<QuarantinedDelivery>(
    `select id::int as id, quarantine_reason, body_sha256, received_at from events
      where id = any($1::bigint[]) and status = 'quarantined' order by id`,
    [deliveryIds],
  );
  return rows;
}
