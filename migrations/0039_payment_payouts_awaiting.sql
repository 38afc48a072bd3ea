-- tally:no-transaction
-- The close reads the settled payments in no payout created before a period's end from this index
-- (docs/decisions/0022-payment-payouts.md). Built concurrently, so the triggers of migration 0038 keep writing.
create index concurrently if not exists payment_payouts_awaiting_idx on payment_payouts
  (coalesce(first_payout_at, 'infinity'::timestamptz)) where settled;
