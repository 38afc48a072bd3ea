-- The money each finding puts at stake, in integer cents of its currency, as the rule that raises it
-- measures it (null: the finding measures no money). Written with the finding and refreshed with it.
alter table findings add column if not exists at_stake bigint;

-- Current findings of payment reconciliation get theirs from the rules, not from a guess in SQL: their
-- payments are marked as not reconciled on their newest state, so reconcile-stale enqueues them at its next
-- pass (at worker start, then every two minutes) and the run refreshes each finding with its at_stake. No
-- reconcile-payments job is on its way for them, so they need not wait out reconcile-stale's one-minute
-- grace. Findings of the other producers (capture expiry, the sweep, fee configuration sync) get theirs
-- when their producer next reports them; the chain, history, forwarding and ingest findings measure none.
insert into payment_reconciliation_states as s (payment_id, projected_version, unreconciled_since)
select distinct substr(f.scope, length('payment:') + 1), 0, now() - interval '1 minute'
  from findings f
 where f.status <> 'resolved' and f.scope like 'payment:%' and f.at_stake is null
 order by 1
on conflict (payment_id) do update set
  unreconciled_since = least(s.unreconciled_since, excluded.unreconciled_since);
