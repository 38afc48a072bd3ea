-- Rule 3's window starts where the payout sync's first full listing of an account started
-- (PAYOUT_LOOKBACK_DAYS before that completed sync), not at the oldest payout Tally holds: an account
-- whose payouts began recently holds no older payout, and its older payments are the ones never paid out.
-- Each completed listing keeps the earliest start (`least` ignores the null of a first one).
alter table payout_sync_accounts add column if not exists listed_from timestamptz;

-- Accounts synced before this column keep the window they had (from their oldest payout held) until their
-- next completed listing, which moves the start back to where that listing began.
update payout_sync_accounts s
   set listed_from = (select min(p.created_at) from payouts p where p.account_id = s.account_id);

-- Fees priced by a retired brand configuration are now measured against the configuration the selection
-- rules pick (the base one) instead of leaving `at_stake` null. Their payments are marked as not
-- reconciled on their newest state, so reconcile-stale (at worker start, then every two minutes) refreshes
-- those findings with the amount the rules measure; no reconcile-payments job is on its way for them.
insert into payment_reconciliation_states as s (payment_id, projected_version, unreconciled_since)
select distinct substr(f.scope, length('payment:') + 1), 0, now() - interval '1 minute'
  from findings f
 where f.status <> 'resolved' and f.scope like 'payment:%' and f.at_stake is null
   and f.code = 'fee_configuration_not_effective'
 order by 1
on conflict (payment_id) do update set
  unreconciled_since = least(s.unreconciled_since, excluded.unreconciled_since);
