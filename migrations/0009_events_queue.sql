-- The raw log is the worker's queue: a delivery waiting to be projected is a row in status `received` (or
-- `failed` with a retry time), claimed with FOR UPDATE SKIP LOCKED. A worker that dies releases its claim
-- with its connection, so another takes the rows over at once; no job row is written per delivery.
alter table events
  add column attempts integer not null default 0,
  add column retry_at timestamptz;

create index events_to_process_idx on events (id)
  where status = 'received' or (status = 'failed' and retry_at is not null);
