import type { Queryable } from './pool.ts';

export type NewEvent = {
  eventId: string | null;
  eventName: string | null;
  accountId: string | null;
  accountType: string | null;
  headers: Record<string, string>;
  rawBody: Buffer;
  bodySha256: Buffer;
  body: unknown;
  quarantineReason: string | null;
  receivedAt: Date;
};

/** Inserts a delivery unless its event id (or, quarantined, its body) is already stored. Returns the row id. */
export async function insertEvent(db: Queryable, event: NewEvent): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    `insert into events (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256,
                         body, status, quarantine_reason, received_at)
     values ($1::text, $2::text, $3::text, $4::text, $5::jsonb, $6::bytea, $7::bytea,
             $8::jsonb, $9::text, $10::text, $11::timestamptz)
     on conflict do nothing
     returning id`,
    [
      event.eventId,
      event.eventName,
      event.accountId,
      event.accountType,
      event.headers,
      event.rawBody,
      event.bodySha256,
      event.body === undefined ? null : JSON.stringify(event.body),
      event.quarantineReason === null ? 'received' : 'quarantined',
      event.quarantineReason,
      event.receivedAt,
    ],
  );
  return rows[0]?.id ?? null;
}
