-- People work findings: open → acknowledged (seen, still checked) → resolved by the data, or accepted with a
-- note (leaves the open counts), and reopened. Every change is kept in finding_history.

alter table findings drop constraint findings_status_check;
alter table findings add constraint findings_status_check
  check (status in ('open', 'acknowledged', 'accepted', 'resolved'));

-- One current (not resolved) finding per (code, subject): reconciling again refreshes or resolves it,
-- whatever a person did with it.
drop index findings_open_key;
create unique index findings_current_key on findings (code, subject_type, subject_id) where status <> 'resolved';
drop index findings_scope_idx;
create index findings_scope_idx on findings (scope) where status <> 'resolved';

-- Each status change and note: who (the API token's name, or `tally` for reconciliation), when, why.
create table finding_history (
  id bigint generated always as identity primary key,
  finding_id bigint not null references findings (id) on delete cascade,
  actor text not null,
  action text not null check (action in ('acknowledge', 'accept', 'reopen', 'note', 'resolve', 'supersede')),
  old_status text not null,
  new_status text not null,
  note text,
  created_at timestamptz not null
);
create index finding_history_finding_idx on finding_history (finding_id, id);

-- Console sign-ins (express-session rows, connect-pg-simple's layout). `sess` holds the token's name, a
-- fingerprint of the token and the CSRF secret, never the token itself.
create table console_sessions (
  sid varchar not null primary key,
  sess json not null,
  expire timestamp(6) not null
);
create index console_sessions_expire_idx on console_sessions (expire);

-- The console's payment timeline: every delivery and API snapshot about a payment (the payment itself, or a
-- refund, dispute… naming it), without reading the whole raw log. The worker sets it when it takes the
-- delivery (processed or failed), so the webhook's insert pays nothing for it; it outlives a purged body.
alter table events add column payment_id text;
create index events_payment_idx on events (payment_id) where payment_id is not null;
