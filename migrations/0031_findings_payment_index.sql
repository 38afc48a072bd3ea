-- tally:no-transaction
-- A payment as the API and its changes show it lists the findings about it or anything of it: those whose
-- subject is the payment, and those whose details name it (a fee, a refund, a returned fee). The second are
-- found through this index, not a scan of every finding for each payment a projection batch changes.
create index concurrently if not exists findings_details_payment_idx on findings ((details ->> 'payment_id'));
