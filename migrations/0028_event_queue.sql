-- The raw log stays append-only: the worker's queue, its failures and its completions are tables of their own,
-- so projecting a delivery never writes a second version of its row (body, headers and five index entries).
-- A delivery waiting to be projected: written by the statement that stores it, deleted by the transaction
-- that commits its projections. No foreign key: the id comes from that same statement, and a key check per
-- delivery is what this table exists to avoid.
create table event_queue (
  id bigint primary key
);
-- A delivery whose projection failed: why, how many attempts, and when it is tried again (never, when null).
create table event_failures (
  id bigint primary key references events (id) on delete cascade,
  attempts integer not null,
  error text not null,
  retry_at timestamptz,
  failed_at timestamptz not null
);
-- When each delivery was last projected (the delivery's `processed_at`), one narrow row a delivery.
create table processed_events (
  id bigint primary key,
  processed_at timestamptz not null
);
-- A delivery stored by this release is `stored`: its wait is in the tables above, not on its row. The previous
-- release's web keeps writing `received` during a deploy, and its worker claims only those. The constraint is
-- checked against existing rows by 0029, outside this transaction.
alter table events drop constraint events_status_check;
alter table events add constraint events_status_check
  check (status in ('received', 'processed', 'failed', 'quarantined', 'stored')) not valid;

-- Each delivery as readers see it (the console, the API, the CLI): its status, error, attempts, retry time and
-- processing time from whichever place holds them, this release's tables or the previous release's columns.
create view deliveries as
select e.id, e.event_id, e.event_name, e.account_id, e.account_type, e.source, e.headers, e.raw_body,
       e.body_sha256, e.quarantine_reason, e.payment_id, e.received_at, e.body_purged_at,
       case when e.status <> 'stored' then e.status
            when f.id is not null then 'failed'
            when exists (select from event_queue q where q.id = e.id) then 'received'
            else 'processed' end as status,
       case when f.id is not null then f.error else e.error end as error,
       case when f.id is not null then f.attempts else e.attempts end as attempts,
       case when f.id is not null then f.retry_at else e.retry_at end as retry_at,
       coalesce(p.processed_at, e.processed_at) as processed_at
  from events e
  left join event_failures f on f.id = e.id
  left join processed_events p on p.id = e.id;
