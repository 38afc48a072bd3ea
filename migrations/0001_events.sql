-- Every signed delivery, as received. The raw bytes are the signature evidence; `body` is the parsed copy.
create table events (
  id bigint generated always as identity primary key,
  -- The provider's `evt_` id, the dedupe key. Null only for quarantined deliveries without a usable id.
  event_id text,
  event_name text,
  account_id text,
  account_type text check (account_type in ('test', 'live')),
  headers jsonb not null,
  raw_body bytea not null,
  body_sha256 bytea not null,
  body jsonb,
  status text not null default 'received' check (status in ('received', 'processed', 'failed', 'quarantined')),
  quarantine_reason text,
  error text,
  received_at timestamptz not null,
  processed_at timestamptz
);

create unique index events_event_id_key on events (event_id);
-- A quarantined body redelivered is a duplicate too; keyed by its hash since it may have no id.
create unique index events_quarantined_body_key on events (body_sha256) where event_id is null;
create index events_status_idx on events (status) where status <> 'processed';
create index events_received_at_idx on events (received_at);

-- Same event id delivered again with a different body: kept aside, never replaces the first.
create table event_conflicts (
  id bigint generated always as identity primary key,
  event_id text not null references events (event_id) on delete cascade,
  headers jsonb not null,
  raw_body bytea not null,
  body_sha256 bytea not null,
  received_at timestamptz not null,
  unique (event_id, body_sha256)
);
