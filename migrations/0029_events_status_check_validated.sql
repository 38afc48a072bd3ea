-- Checks the widened status constraint of 0028 against the rows stored before it. Validating takes a lock that
-- lets reads and writes go on (share update exclusive), so it runs in a transaction of its own, after 0028's.
alter table events validate constraint events_status_check;
