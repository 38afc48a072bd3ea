-- Reports for finance, stored as JSON and rendered on request (JSON, CSV, HTML).
create table reports (
  id bigint generated always as identity primary key,
  kind text not null check (kind in ('daily', 'fee-configurations')),
  -- The UTC day a daily report covers; null for fee-configuration reports.
  period date,
  body jsonb not null,
  created_at timestamptz not null
);
create index reports_kind_idx on reports (kind, id);

-- Daily reports select by day.
create index payments_created_at_idx on payments (created_at);
create index refunds_created_at_idx on refunds (created_at);
