-- The changes feed's outbox: one row per change Tally makes to a projection (payment, refund, dispute,
-- checkout, forwarding request, payout) or a finding, inserted in the transaction that makes the change.
-- `seq` is the feed position. It is not taken at insert: a sequence value taken at insert can commit after a
-- larger one, and a reader would then skip it. The sequencer (src/changes/) numbers rows only once their
-- transaction has committed, one sequencer at a time (it locks `change_sequencer`'s row), so every position
-- a reader can see was committed before any larger one.
create table changes (
  -- Insertion order; the sequencer numbers committed rows in this order, which keeps an object's versions in
  -- order (an object's writers are serialized by the lock on its projection row).
  row_id bigint generated always as identity primary key,
  -- The feed position: null until sequenced.
  seq bigint unique,
  type text not null,
  object text not null,
  object_id text not null,
  object_version integer not null check (object_version > 0),
  account_id text,
  account_type text,
  occurred_at timestamptz not null,
  recorded_at timestamptz not null default now(),
  event_ids text[] not null default '{}',
  data jsonb not null,
  unique (object, object_id, object_version)
);

create index changes_unsequenced on changes (row_id) where seq is null;
create index changes_recorded_at on changes (recorded_at);

-- The sequencer's single row: the last position given, and the last position removed by retention (a cursor
-- below it is older than what the feed keeps: the changes just after it are gone).
create table change_sequencer (
  id boolean primary key default true check (id),
  last_seq bigint not null default 0,
  purged_through bigint not null default 0
);
insert into change_sequencer default values;

-- Per object, the last version appended and a digest of the row it showed: the next change's version, and whether a
-- write changed what the API shows (a rebuild that arrives at the same object appends nothing). Retention
-- keeps these rows, so an object's versions never start over.
create table change_versions (
  object text not null,
  object_id text not null,
  version integer not null check (version > 0),
  row_digest uuid not null,
  primary key (object, object_id)
);
