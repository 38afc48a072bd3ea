-- tally:no-transaction
-- A refund carries its payment's account key (account type, account and currency), written by the projection
-- and backfilled (src/db/backfills.ts): the close sums a month's refunds per account without reading every
-- payment. A refund Tally projected before its payment has none until the payment arrives; the close reads
-- those few through the partial index.
alter table refunds add column if not exists account_type text;
alter table refunds add column if not exists account_id text;
alter table refunds add column if not exists currency text;
create index concurrently if not exists refunds_keyless_idx on refunds (created_at) where account_id is null;
-- The payouts only the provider's ledger lists, and when each first appears, without reading every line.
create index concurrently if not exists provider_ledger_lines_payout_line_idx on provider_ledger_lines (payout_id, created_at)
  where kind = 'payout';
