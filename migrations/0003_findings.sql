-- Discrepancies found by reconciliation. One open finding per (code, subject); a re-run updates it or
-- resolves it; resolved rows stay as history, and a recurrence opens a new row.
create table findings (
  id bigint generated always as identity primary key,
  code text not null,
  severity text not null check (severity in ('info', 'warning', 'error')),
  status text not null default 'open' check (status in ('open', 'resolved')),
  subject_type text not null,
  subject_id text not null,
  account_id text,
  currency text,
  expected jsonb,
  actual jsonb,
  details jsonb not null default '{}',
  -- The reconciliation run that reports it (e.g. `payment:py_1`): a run resolves what it no longer reports.
  scope text not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  resolved_at timestamptz
);
create unique index findings_open_key on findings (code, subject_type, subject_id) where status = 'open';
create index findings_scope_idx on findings (scope) where status = 'open';
create index findings_subject_idx on findings (subject_id);
create index findings_code_status_idx on findings (code, status);

-- The last reconciliation of each payment: what it could not check (no fee configurations known yet)
-- and what it did not check on purpose (explicit fees, the legacy application fee).
create table payment_reconciliations (
  payment_id text primary key,
  account_id text not null,
  reconciled_at timestamptz not null,
  overrides integer not null,
  unverified integer not null
);
create index payment_reconciliations_unverified_idx on payment_reconciliations (payment_id) where unverified > 0;
