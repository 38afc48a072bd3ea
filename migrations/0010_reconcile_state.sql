-- Whether each payment's last reconciliation saw its newest projection state, so a reconciliation lost to a
-- crash or to exhausted retries is found and run again (the reconcile-stale job). Keyed by the payment id
-- the projection names, known payment or not (a refund or a dispute can arrive before its payment).
create table payment_reconciliation_states (
  payment_id text primary key,
  -- Raised by one in every projection transaction that touches the payment (or its refunds, disputes,
  -- checkout); row-locked, so it grows in commit order.
  projected_version bigint not null,
  -- The projected_version the newest recorded reconciliation read, in the same snapshot as its facts.
  reconciled_version bigint not null default 0,
  -- When the first projection change that no reconciliation has seen yet was committed; null when the last
  -- reconciliation saw the newest state.
  unreconciled_since timestamptz,
  reconciled_at timestamptz
);
create index payment_reconciliation_states_unreconciled_idx
  on payment_reconciliation_states (unreconciled_since) where unreconciled_since is not null;

-- Payments projected before this migration: reconciled if a reconciliation was recorded, else never.
insert into payment_reconciliation_states (payment_id, projected_version, reconciled_version, unreconciled_since, reconciled_at)
select p.id, 1, case when r.payment_id is null then 0 else 1 end,
       case when r.payment_id is null then now() end, r.reconciled_at
  from payments p left join payment_reconciliations r on r.payment_id = p.id;
