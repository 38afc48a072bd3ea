-- Declines: each failed card payment's classification by the seed's decline tables, stored with the payment
-- (projected from the shown snapshot, so `tally reprocess --all` rebuilds it), and the card's identity, which
-- "same card" compares (same payment method id, or same brand, last four and expiry).
alter table payments
  add column card_last_four text,
  -- YYYY-MM
  add column card_expiry text,
  -- The payment method id, else brand:last four:expiry: the subject of card_declined_repeatedly.
  add column card_key text,
  add column decline_code text,
  add column network text,
  add column network_error_code text,
  add column network_error_category text,
  add column retry_advice text
    check (retry_advice in ('do_not_retry', 'retry_later', 'retry_with_new_details', 'stop_recurring', 'unknown')),
  add column advice_scope text check (advice_scope in ('one_recurring_payment', 'merchant', 'all_merchants'));

create index payments_card_key_idx on payments (card_key) where card_key is not null;
create index payments_card_identity_idx on payments (card_last_four, card_expiry)
  where card_expiry is not null;

-- One row per declined card payment, in the order the projection first saw it: the cursor of GET /api/declines.
create table payment_declines (
  row_id bigint generated always as identity primary key,
  payment_id text not null unique
);
