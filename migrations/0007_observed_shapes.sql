-- What the provider actually sends, beyond the seed: disputes, ACH returns and voids that hand fees back,
-- payment modes without a fee configuration type, checkout currencies, and the unknown values seen.

-- `returned` / `amount_returned`: an ACH return or a void hands the fees back without a refund object.
alter table payments add column returned boolean;
alter table payments add column amount_returned bigint;
-- `other`: a payment mode with no fee configuration type of its own (bnpl, …); its fees are unverified.
alter table payments drop constraint payments_method_kind_check;
alter table payments add constraint payments_method_kind_check
  check (method_kind in ('card', 'ach', 'card_present', 'other'));

-- `payment_currency` of a checkout, lower case like every other currency column.
alter table checkouts add column currency text;

create table disputes (
  -- Cursor pagination pages by this row number; `id` is the provider's `dp_` id.
  row_id bigint generated always as identity unique,
  id text primary key,
  payment_id text,
  account_id text not null,
  account_type text not null,
  amount bigint,
  currency text,
  reason text,
  due_date date,
  status text,
  -- Ranked like checkouts: a closed dispute (won, lost, forfeited) never reopens on an older snapshot.
  status_rank integer not null default 0,
  status_updated_at timestamptz,
  status_event_row_id bigint,
  created_at timestamptz,
  updated_at timestamptz not null,
  event_row_id bigint not null,
  snapshot jsonb not null
);
create index disputes_payment_idx on disputes (payment_id);
create index disputes_status_idx on disputes (status, row_id);
create index disputes_account_idx on disputes (account_id, row_id);
create index disputes_created_at_idx on disputes (created_at);

-- Enum values the seed does not name (payment modes, statuses, card brands…), kept verbatim on the
-- projections and counted here: how many processed deliveries carried each. Rebuilt with the projections.
create table unknown_values (
  field text not null,
  value text not null,
  deliveries bigint not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  primary key (field, value)
);
