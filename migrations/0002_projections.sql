-- Current state projected from the raw events. No foreign keys between projections: deliveries arrive in
-- any order (a refund before its payment), and every row can be rebuilt from `events`.
-- Each projection keeps the (updated_at, event_row_id) of the snapshot it shows: a snapshot replaces it
-- only when newer, so the result does not depend on delivery order.

create table payments (
  id text primary key,
  account_id text not null,
  account_type text not null,
  amount bigint,
  currency text,
  status text,
  -- The status is chosen apart from the other fields: a terminal status outranks a non-terminal one.
  status_terminal boolean not null default false,
  status_updated_at timestamptz,
  status_event_row_id bigint,
  capture_strategy text,
  captured boolean,
  payment_mode text,
  method_kind text check (method_kind in ('card', 'ach', 'card_present')),
  card_brand text,
  expedited boolean not null default false,
  fee_amount bigint,
  application_fee_amount bigint,
  amount_refunded bigint,
  error_code text,
  error_description text,
  checkout_id text,
  payment_method_id text,
  created_at timestamptz,
  updated_at timestamptz not null,
  event_row_id bigint not null,
  -- Facts kept across snapshots (earliest seen), e.g. an ACH payment that succeeded and later failed.
  authorized_at timestamptz,
  captured_at timestamptz,
  succeeded_at timestamptz,
  failed_at timestamptz,
  canceled_at timestamptz,
  -- Fees compete on their own key: a snapshot without a `fees` array says nothing about them.
  fees_updated_at timestamptz not null default '-infinity',
  fees_event_row_id bigint not null default 0,
  snapshot jsonb not null
);
create index payments_account_idx on payments (account_id);
create index payments_checkout_idx on payments (checkout_id) where checkout_id is not null;
create index payments_payment_method_idx on payments (payment_method_id) where payment_method_id is not null;

create table payment_fees (
  id text primary key,
  payment_id text not null,
  type text not null,
  amount bigint not null,
  remaining_amount bigint,
  currency text,
  source_configuration_id text,
  source_fee_type text,
  -- updated_at of the payment snapshot this row came from (a snapshot older than a refund is no evidence).
  snapshot_updated_at timestamptz not null
);
create index payment_fees_payment_idx on payment_fees (payment_id);

create table refunds (
  id text primary key,
  payment_id text,
  amount bigint,
  reason text,
  status text,
  created_at timestamptz,
  updated_at timestamptz not null,
  event_row_id bigint not null,
  -- Returned fees compete on their own key: a refund embedded without them says nothing about them.
  returned_fees_updated_at timestamptz not null default '-infinity',
  returned_fees_event_row_id bigint not null default 0,
  snapshot jsonb not null
);
create index refunds_payment_idx on refunds (payment_id);

create table returned_fees (
  id text primary key,
  refund_id text not null,
  payment_fee_id text,
  type text,
  returned_amount bigint,
  original_amount bigint,
  remaining_amount bigint,
  currency text
);
create index returned_fees_refund_idx on returned_fees (refund_id);

create table checkouts (
  id text primary key,
  account_id text not null,
  account_type text not null,
  amount bigint,
  description text,
  payment_amount bigint,
  status text,
  status_rank integer not null default 0,
  status_updated_at timestamptz,
  status_event_row_id bigint,
  -- `payment.fees` as set on the checkout: [{type, amount}].
  fees jsonb,
  payment_id text,
  created_at timestamptz,
  updated_at timestamptz not null,
  event_row_id bigint not null,
  snapshot jsonb not null
);

create table forwarding_requests (
  id text primary key,
  account_id text not null,
  account_type text not null,
  payment_method_id text,
  url text,
  http_method text,
  provider text,
  status text,
  status_rank integer not null default 0,
  status_updated_at timestamptz,
  status_event_row_id bigint,
  failure_reason text,
  response_status_code integer,
  response_time_ms integer,
  attempted_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz not null,
  event_row_id bigint not null,
  snapshot jsonb not null
);
create index forwarding_requests_payment_method_idx on forwarding_requests (payment_method_id);

-- Every terminal outcome event, so a second or conflicting one stays visible.
create table forwarding_outcomes (
  event_row_id bigint primary key,
  forwarding_request_id text not null,
  status text not null check (status in ('completed', 'failed')),
  failure_reason text,
  response_status_code integer,
  url text
);
create index forwarding_outcomes_request_idx on forwarding_outcomes (forwarding_request_id);
