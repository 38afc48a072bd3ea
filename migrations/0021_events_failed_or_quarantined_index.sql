-- Deliveries waiting to be projected are found through events_to_process_idx (the worker's claim, and counting
-- them); this index now holds only the failed and quarantined ones, which the status page, /metrics and the
-- overview count. A delivery stored as `received` costs one index entry less, and the claim has only the index
-- of waiting rows to choose, whatever the size of the raw log.
drop index events_status_idx;
create index events_failed_or_quarantined_idx on events (status) where status in ('failed', 'quarantined');
