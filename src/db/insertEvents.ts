import type { Queryable } from './pool.ts';

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
