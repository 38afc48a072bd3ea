import type { Queryable } from './pool.ts';

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
                               'body_sha256', encode(e.body_sha256, 'hex'), 'received_at', e.received_at),
            'ingest:' || e.id, e.received_at, e.received_at
       from events e
      where e.id = any($1::bigint[]) and e.status = 'quarantined'
      order by e.id
     on conflict do nothing`,
    [deliveryIds],
  );
}
