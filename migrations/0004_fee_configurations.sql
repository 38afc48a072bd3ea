-- Every standard fee configuration version the provider has published, as first seen. Fields never
-- change here except `effective_end` being set once; a provider-side change is a finding instead.
create table fee_configurations (
  id text primary key,
  account_id text not null,
  platform_account_id text,
  fee_type text not null,
  variable_rate numeric not null,
  transaction_fee_cents bigint not null,
  transaction_fee_currency text,
  fee_cap_cents bigint,
  effective_start timestamptz not null,
  effective_end timestamptz,
  -- What the provider returned last time, when it differs from the stored version.
  provider_values jsonb,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  vanished_at timestamptz
);
create index fee_configurations_account_type_idx on fee_configurations (account_id, fee_type, effective_start);

-- One row per sub account: when its fee configuration history was last fetched whole.
create table fee_configuration_syncs (
  account_id text primary key,
  synced_at timestamptz not null
);
