import type { Queryable } from './pool.ts';

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
              jsonb_agg(jsonb_build_object('body_sha256', encode(c.body_sha256, 'hex'), 'received_at', c.received_at)
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
                                                            'received_at', received_at),
                               'conflicting', bodies),
            'ingest:' || event_id, last_received_at, last_received_at
       from conflicting
     on conflict (code, subject_type, subject_id) where status = 'open' do update set
       actual = excluded.actual, details = excluded.details, last_seen_at = excluded.last_seen_at`,
    [[...new Set(eventIds)]],
  );
}
