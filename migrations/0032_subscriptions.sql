-- Forwarding (src/subscriptions/): the merchant's URLs that receive every change of their types, signed.
create table subscriptions (
  id bigint generated always as identity primary key,
  url text not null,
  -- Change types and `object.*` patterns (src/changes/changeTypes.ts); empty: every type.
  types text[] not null default '{}',
  description text,
  -- `whsec_` and 32 random bytes in base64; while `previous_secret_until` is ahead, both sign (new first).
  secret text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  enabled boolean not null default true,
  -- `manual` (PATCH) or `failing` (every attempt failed for 3 days); null while enabled.
  disabled_reason text check (disabled_reason in ('manual', 'failing')),
  disabled_at timestamptz,
  -- The feed position up to which changes have become deliveries: a new subscription starts at the newest.
  queued_through bigint not null,
  -- Since when every attempt has failed (null: the last attempt was delivered, or none was made).
  failing_since timestamptz,
  last_delivered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- One row per change still to deliver to a subscription (pending) or given up on (failed); a delivered
-- change's row is deleted. `seq` orders an object's changes as their `object_version`s; only an object's
-- first pending change (its `head`) may be sent, so a worker finds what it may send by index alone.
create table subscription_deliveries (
  subscription_id bigint not null references subscriptions (id) on delete cascade,
  seq bigint not null,
  object text not null,
  object_id text not null,
  recorded_at timestamptz not null,
  status text not null default 'pending' check (status in ('pending', 'failed')),
  head boolean not null default false,
  attempts integer not null default 0,
  first_attempt_at timestamptz,
  next_attempt_at timestamptz not null default now(),
  -- A worker's claim: another worker takes the delivery again once this has passed (a killed worker's).
  leased_until timestamptz,
  primary key (subscription_id, seq)
);
-- The next due deliveries of a subscription, and an object's pending changes (to find its next head).
create index subscription_deliveries_due on subscription_deliveries (subscription_id, next_attempt_at, seq)
  where status = 'pending' and head;
create index subscription_deliveries_object on subscription_deliveries (subscription_id, object, object_id, seq)
  where status = 'pending';

-- Each attempt, for the subscription's page (the newest are kept, src/subscriptions/attemptQueries.ts).
create table subscription_attempts (
  id bigint generated always as identity primary key,
  subscription_id bigint not null references subscriptions (id) on delete cascade,
  seq bigint not null,
  attempted_at timestamptz not null,
  outcome text not null,
  status_code integer,
  duration_ms integer not null,
  error text
);
create index subscription_attempts_newest on subscription_attempts (subscription_id, id desc);

-- Attempts by outcome since the subscription was made, for /metrics and /api/status.
create table subscription_attempt_counts (
  subscription_id bigint not null references subscriptions (id) on delete cascade,
  outcome text not null,
  attempts bigint not null default 0,
  primary key (subscription_id, outcome)
);
