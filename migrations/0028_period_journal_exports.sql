-- Every download of a closed period's journal: which version, in which format, whether it was the changes since
-- an earlier version, who and when. The period's page shows what was exported and offers the changes file first
-- once an earlier version's journal went out (docs/month-end.md, "After a reopen").
create table period_journal_exports (
  id bigint generated always as identity primary key,
  period text not null,
  version integer not null,
  format text not null,
  currency text,
  part integer,
  -- The earlier version this file held the changes since; null for the full journal.
  changes_since integer,
  actor text not null,
  created_at timestamptz not null,
  foreign key (period, version) references period_versions (period, version) on delete cascade
);

create index period_journal_exports_period_idx on period_journal_exports (period, id);
