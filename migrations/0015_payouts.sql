-- Payouts and their lines (the provider's balance transactions), projected from `payout.*` deliveries and from
-- the `api` snapshots the payout sync stores in the raw log: a rebuild from the raw log reproduces both.
-- Newer wins, by the object's `updated_at` then the delivery's row id: an older snapshot arriving late never
-- takes a payout back (a `paid` payout never returns to `in_transit`).
create table payouts (
  id text primary key,
  account_id text not null,
  amount bigint not null,
  currency text not null,
  status text not null,
  payout_type text,
  delivery_method text,
  description text,
  deposits_at timestamptz,
  payments_count integer,
  payments_total bigint,
  refunds_count integer,
  refunds_total bigint,
  fees_total bigint,
  other_total bigint,
  bank_account jsonb,
  metadata jsonb,
  created_at timestamptz,
  updated_at timestamptz,
  -- The delivery (raw log row) whose snapshot is shown.
  event_row_id bigint not null,
  -- How many lines the payout has, as the sync counted them when it had loaded every page; null until then.
  -- The payout is judged only once this many lines are projected (`lines_complete`).
  line_count integer,
  lines_complete boolean not null default false,
  -- The shown snapshot as the provider sent it (card numbers redacted): fields Tally does not read are kept.
  snapshot jsonb,
  -- When the shown snapshot's delivery was received (not the wall clock), so a rebuild gives the same row.
  projected_at timestamptz not null
);
create index payouts_account_created_idx on payouts (account_id, created_at);
create index payouts_status_idx on payouts (status);
create index payouts_deposits_at_idx on payouts (deposits_at);

-- One row per balance transaction. Amounts are integer cents from the merchant balance's view, whatever the
-- provider's sign convention: a credit is positive, a debit negative (`amount`, `net`); `fee` is the magnitude
-- deducted from the line (net = amount - fee). `kind` is what the line does, from `txn_type`: payment (a
-- payment credited), refund (a refund debited), fee (a fee deducted), fee_return (a fee handed back),
-- payout (the payout itself, left out of the sums), other (everything else, dispute and platform types, and
-- unknown types with their sign as given).
create table payout_lines (
  id text primary key,
  payout_id text not null,
  account_id text not null,
  txn_type text not null,
  kind text not null check (kind in ('payment', 'refund', 'fee', 'fee_return', 'payout', 'other')),
  amount bigint not null,
  fee bigint not null default 0,
  net bigint not null,
  currency text not null,
  source_id text,
  source_type text,
  source_payment_id text,
  financial_transaction_id text,
  description text,
  available_on timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  event_row_id bigint not null,
  -- As in `payouts`: the shown snapshot verbatim, and when its delivery was received.
  snapshot jsonb,
  projected_at timestamptz not null
);
create index payout_lines_payout_idx on payout_lines (payout_id);
create index payout_lines_source_payment_idx on payout_lines (source_payment_id) where source_payment_id is not null;
create index payout_lines_source_idx on payout_lines (source_id) where source_id is not null;

-- Each sub account whose payouts the sync lists: when it last finished, and the newest payout it has seen.
-- Payments are judged "not paid out" only for these accounts, and only if created before that payout.
create table payout_sync_accounts (
  account_id text primary key,
  synced_at timestamptz not null,
  newest_payout_created_at timestamptz
);

-- How many lines each payout has, from the sync's marker snapshot (stored once every page of lines is in the
-- raw log). Kept apart from `payouts` so a marker projected before its payout is not lost; newest marker wins.
create table payout_line_counts (
  payout_id text primary key,
  line_count integer not null,
  event_row_id bigint not null
);

-- The sync's own progress per payout: the payout state whose lines (and marker) are stored in the raw log.
-- A payout listed again in this state is skipped; one missing here is fetched again, lines and all.
create table payout_line_syncs (
  payout_id text primary key,
  account_id text not null,
  payout_updated_at timestamptz,
  payout_status text not null,
  line_count integer not null,
  synced_at timestamptz not null
);

-- Payments named by a payout line that Tally did not have, fetched once with get-payment (`found`: the
-- provider returned it, stored as an `api` snapshot; false: it answered `resource_not_found`).
create table payout_payment_fetches (
  payment_id text primary key,
  account_id text not null,
  payout_id text not null,
  found boolean not null,
  fetched_at timestamptz not null
);
