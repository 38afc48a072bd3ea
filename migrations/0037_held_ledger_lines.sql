-- tally:no-transaction
-- The provider's ledger lines still held (in no payout), by the payment they come from: the close's tie-out
-- finds the payments awaiting payout that the provider lists no line for by reading this small index first,
-- and looks up the whole ledger only for the few it does not explain (docs/month-end.md).
create index concurrently if not exists provider_ledger_lines_held_payment_idx on provider_ledger_lines
  (source_payment_id) where payout_id is null and source_payment_id is not null;
