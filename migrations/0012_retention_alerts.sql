-- Retention of raw bodies, and alerts for any finding (digests, a signed destination, dispute deadlines).

-- A purged delivery keeps its row, id, hash, headers and processing state; only `raw_body` (emptied: the
-- column stays not null) and `body` go, and this records when. The same for a conflicting body.
alter table events add column body_purged_at timestamptz;
alter table event_conflicts add column body_purged_at timestamptz;
-- The purge walks the oldest kept bodies first, and GET /api/status reads the oldest one: without this
-- index both would step over every purged row first.
create index events_kept_body_received_at_idx on events (received_at) where body_purged_at is null;

-- One row per purge run (the daily job or `tally purge`), counted batch by batch in the batch's own
-- transaction, so a run cut short still counts what it purged.
create table body_purges (
  id bigint generated always as identity primary key,
  cutoff timestamptz not null,
  purged_events bigint not null default 0,
  purged_conflicts bigint not null default 0,
  started_at timestamptz not null,
  finished_at timestamptz
);

-- Every finding opened, whichever stage opened it (reconciliation, ops, the sweep, ingest's own SQL),
-- recorded in the transaction that opened it; the alert scan takes rows from here and deletes them. A
-- statement trigger sees only inserted rows: an `on conflict do update` that refreshes an open finding
-- is not an opening.
create table opened_findings (
  finding_id bigint primary key,
  code text not null
);
create function record_opened_findings() returns trigger language plpgsql as $$
begin
  insert into opened_findings (finding_id, code) select id, code from opened where status = 'open';
  return null;
end
$$;
create trigger findings_opened after insert on findings
  referencing new table as opened for each statement execute function record_opened_findings();

-- The finding an alert is about (a digest drops alerts whose finding resolved before it went out).
alter table alerts add column finding_id bigint;
-- With ALERT_DIGEST_MINUTES: when the digest holding this alert is due (null: sent on its own), and the
-- digest alert that took it.
alter table alerts add column digest_due_at timestamptz;
alter table alerts add column digest_id bigint;
-- Delivery per destination (`slack`, `signed`): {status, attempts, last_error, sent_at}; one endpoint
-- that is down is retried without sending again to the one that answered.
alter table alerts add column deliveries jsonb not null default '{}';
alter table alerts drop constraint alerts_status_check;
alter table alerts add constraint alerts_status_check
  check (status in ('pending', 'sent', 'failed', 'logged', 'digested', 'dropped'));
create index alerts_digest_due_idx on alerts (digest_due_at) where digest_id is null and status = 'pending';
