-- tally:no-transaction
-- The settled payments no line of the provider's ledger names yet: for an account whose ledger the payout sync
-- lists, only those it has not listed yet. The close's tie-out reads, among the payments awaiting payout, those
-- of the listed accounts the provider has no line for from this index instead of reading every unpaid payment a
-- second time (docs/decisions/0022-payment-payouts.md). Built concurrently, so the triggers of migration 0038
-- keep writing.
create index concurrently if not exists payment_payouts_without_line_idx on payment_payouts (account_id)
  where settled and ledger_lines = 0;
