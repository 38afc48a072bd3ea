-- A rebuild (`tally reprocess --all`) owes the judgement of everything it rebuilt: it notes that with the
-- projections' reset and clears it once every judgement is queued. A note left behind (a rebuild that stopped)
-- is paid by reconcile-stale once no rebuild runs.
create table if not exists rebuild_judgements_due (
  rebuild_started_at timestamptz primary key
);
