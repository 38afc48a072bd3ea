-- Ops alerts. The dedupe key (e.g. `capture:py_1:24`) makes each threshold crossing alert exactly once,
-- however many scans or workers see it, across restarts.
create table alerts (
  id bigint generated always as identity primary key,
  dedupe_key text not null unique,
  kind text not null,
  subject_id text not null,
  account_id text,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'logged')),
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null,
  sent_at timestamptz
);
create index alerts_status_idx on alerts (status);
