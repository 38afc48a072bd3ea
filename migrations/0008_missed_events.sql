-- Missed events: what the provider gave up delivering is found through its API.

-- Snapshots fetched from the provider's API (the missed-event sweep, `tally backfill`) sit in the raw log
-- beside webhook deliveries and are projected by the same code; `tally export` writes only webhook rows.
alter table events add column source text not null default 'webhook' check (source in ('webhook', 'api'));

-- The newest state a webhook delivery brought (API snapshots aside): what "missed" is measured against.
alter table payments add column delivered_updated_at timestamptz;
alter table forwarding_requests add column delivered_updated_at timestamptz;

-- How far back the last complete sweep of an account listed objects: a sweep after a long outage reaches
-- back to it even past SWEEP_LOOKBACK_HOURS, so nothing created in between goes unlisted.
create table sweep_watermarks (
  account_id text not null,
  resource text not null check (resource in ('payments', 'forwarding_requests')),
  swept_until timestamptz not null,
  primary key (account_id, resource)
);

-- One row per sweep (or backfill) of an account: for GET /api/status, /metrics and people.
create table sweep_runs (
  id bigint generated always as identity primary key,
  account_id text not null,
  kind text not null check (kind in ('sweep', 'backfill')),
  status text not null default 'running' check (status in ('running', 'completed', 'failed')),
  listed integer not null default 0,
  new integer not null default 0,
  newer integer not null default 0,
  unchanged integer not null default 0,
  missed integer not null default 0,
  error text,
  started_at timestamptz not null,
  finished_at timestamptz
);
create index sweep_runs_finished_idx on sweep_runs (finished_at) where status = 'completed';

-- A payment whose fee breakdown never arrived is fetched once with get-payment, not on every sweep.
create table fee_breakdown_fetches (
  payment_id text primary key,
  fetched_at timestamptz not null
);
