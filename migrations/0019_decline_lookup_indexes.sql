-- Reconciling a payment looks up its card's earlier declines. Only failed payments with retry advice can
-- match, a handful among millions of payments, so these indexes hold just those: with the card indexes of
-- 0018 each lookup still read every payment of a card that is shared (the same payment method id, or the
-- same last four and expiry) to find its failed ones. The card key index served only that lookup.
drop index payments_card_key_idx;

create index payments_card_declines_idx on payments (card_key)
  where status = 'failed' and retry_advice is not null;
create index payments_method_blocking_declines_idx on payments (payment_method_id)
  where status = 'failed' and retry_advice in ('do_not_retry', 'stop_recurring');
create index payments_card_blocking_declines_idx on payments (card_last_four, card_expiry)
  where status = 'failed' and retry_advice in ('do_not_retry', 'stop_recurring');
