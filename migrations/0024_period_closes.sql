-- A closed period's report and journal, stored as they were when it was closed and served unchanged from then on
-- (DESIGN.md, "Month-end close"). Closing again after a reopen stores the next version; the current one is the
-- version whose `reopened_at` is null (at most one a period: closes and reopens take a lock on this table).
create table period_versions (
  period text not null check (period ~ '^\d{4}-(0[1-9]|1[0-2])$'),
  version integer not null check (version > 0),
  -- The close report's JSON text exactly as GET /api/periods/:period.json serves it.
  report text not null,
  -- The journal entries with the LEDGER_ACCOUNTS, LEDGER_XERO_TAX_RATE and LEDGER_NETSUITE_SUBSIDIARY of the close.
  journal text not null,
  -- Hex sha256 of `report`, a newline, and `journal`.
  content_sha256 text not null,
  -- Every movement up to the period's end as Tally knew it at the close, per month, account and currency, by
  -- kind: what later changes to this and earlier periods are measured against (the next period's adjustments).
  booked jsonb not null,
  -- The data the close saw: last delivery received, last sweep, last payout sync, newest statement date.
  cut_off jsonb not null,
  closed_by text not null,
  closed_at timestamptz not null,
  reopened_at timestamptz,
  primary key (period, version)
);

-- Every close and reopen of a period, with who did it and their note.
create table period_history (
  id bigint generated always as identity primary key,
  period text not null,
  version integer not null,
  action text not null check (action in ('close', 'reopen')),
  actor text not null,
  note text,
  created_at timestamptz not null,
  foreign key (period, version) references period_versions (period, version) on delete cascade
);
