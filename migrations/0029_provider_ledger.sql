-- tally:no-transaction
-- The provider's own ledger of each sub account the payout sync lists (GET /v1/balance_transactions with the
-- Sub-Account header and no payout_id), for the month-end tie-out (docs/month-end.md): one row per balance
-- transaction, its amounts normalized as payout lines are (credit positive, net = amount - fee). A listing is
-- stored whole or not at all, so a failed one leaves the previous listing in place.
create table if not exists provider_ledger_lines (
  account_id text not null,
  id text not null,
  payout_id text,
  txn_type text not null,
  kind text not null,
  net bigint not null,
  currency text not null,
  source_id text,
  source_type text,
  source_payment_id text,
  created_at timestamptz not null,
  -- The listing that last saw it: a full listing removes the lines it no longer shows.
  listed_at timestamptz not null,
  primary key (account_id, id)
);
create index concurrently if not exists provider_ledger_lines_held_idx on provider_ledger_lines (account_id, currency, created_at);
create index concurrently if not exists provider_ledger_lines_payout_idx on provider_ledger_lines (payout_id) where payout_id is not null;
create index concurrently if not exists provider_ledger_lines_payment_idx on provider_ledger_lines (source_payment_id)
  where source_payment_id is not null;
create index concurrently if not exists provider_ledger_lines_source_idx on provider_ledger_lines (source_id) where source_id is not null;

-- Per account: the last completed listing (and the last full one), and the last failed attempt since then.
create table if not exists provider_ledger_listings (
  account_id text primary key,
  listed_at timestamptz,
  full_listed_at timestamptz,
  lines integer not null default 0,
  failed_at timestamptz,
  error text
);


-- Manual captures are few: the close's scan of a month's sales and its activity check find them by this index
-- instead of reading every payment of the month a second time. Run outside a transaction (the first line), as a
-- concurrent build must, so payments stay writable while it builds; every statement here can be run again.
create index concurrently if not exists payments_manual_created_at_idx on payments (created_at)
  where capture_strategy = 'manual';
