-- tally:no-transaction
-- The period-report job stores the month's close report as a report of kind 'period', so GET /api/reports
-- lists it beside the daily and fee-configuration reports; `period` holds the month's first day.
-- Each statement commits on its own: the new check is added NOT VALID (no scan under the ACCESS EXCLUSIVE lock
-- the swap takes, which lock_timeout bounds) and validated after, under a lock that lets reads and writes go
-- on. Run again after a stop, the drop takes whichever check is there and the rest follows.
set lock_timeout = '5s';
alter table reports drop constraint if exists reports_kind_check;
alter table reports add constraint reports_kind_check
  check (kind in ('daily', 'fee-configurations', 'period')) not valid;
alter table reports validate constraint reports_kind_check;
reset lock_timeout;
