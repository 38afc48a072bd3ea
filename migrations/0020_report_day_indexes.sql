-- The daily report's failed and canceled payments of one day (ACH returns, fees handed back on a return or a
-- void, card declines): found by these small partial indexes instead of a scan of every payment ever stored.
create index payments_failed_at_idx on payments (failed_at) where status = 'failed';
create index payments_canceled_at_idx on payments (canceled_at) where status = 'canceled';
-- Declines count on the day they were attempted, `coalesce(created_at, updated_at)` as declinesByNetwork.ts says.
create index payments_declined_at_idx on payments ((coalesce(created_at, updated_at)))
  where status = 'failed' and retry_advice is not null;
