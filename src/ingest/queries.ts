import type { Queryable } from '../db/pool.ts';

export type NewEvent = {
  eventId: string | null;
  eventName: string | null;
  accountId: string | null;
  accountType: string | null;
  headers: Record<string, string>;
  rawBody: Buffer;
  bodySha256: Buffer;
  /** The body as JSON text for the `body` column (the raw text itself); null for a quarantined one. */
  bodyJson: string | null;
  quarantineReason: string | null;
  receivedAt: Date;
};

export type InsertedEvent = { id: number; event_id: string | null; body_sha256: Buffer };

/**
 * Inserts deliveries in one statement, in order, skipping any whose event id (or, quarantined, whose
 * body) is already stored, including by an earlier one of the same batch. Returns the rows inserted.
 */
export async function insertEvents(db: Queryable, events: NewEvent[]): Promise<InsertedEvent[]> {
  const { rows } = await db.query<InsertedEvent>(
    `insert into events (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256,
                         body, status, quarantine_reason, received_at)
     select e.event_id, e.event_name, e.account_id, e.account_type, e.headers, decode(e.raw_body, 'base64'),
            decode(e.body_sha256, 'hex'), e.body::jsonb,
            case when e.quarantine_reason is null then 'received' else 'quarantined' end,
            e.quarantine_reason, e.received_at
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[],
                   $8::text[], $9::text[], $10::timestamptz[])
            with ordinality as e(event_id, event_name, account_id, account_type, headers, raw_body, body_sha256,
                                 body, quarantine_reason, received_at, position)
      order by e.position
     on conflict do nothing
     returning id, event_id, body_sha256`,
    [
      events.map((event) => event.eventId),
      events.map((event) => event.eventName),
      events.map((event) => event.accountId),
      events.map((event) => event.accountType),
      events.map((event) => JSON.stringify(event.headers)),
      events.map((event) => event.rawBody.toString('base64')),
      events.map((event) => event.bodySha256.toString('hex')),
      events.map((event) => event.bodyJson),
      events.map((event) => event.quarantineReason),
      events.map((event) => event.receivedAt),
    ],
  );
  return rows;
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
 * conflict, so nobody is told of a conflict that was rolled back.
 */
export async function openEventConflictFindings(db: Queryable, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
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
