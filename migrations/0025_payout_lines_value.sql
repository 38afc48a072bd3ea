set local lock_timeout = '5s';
-- Tally's value of a judged payout's lines (its payout line left out), kept with the judgement so the close
-- reads one row per payout instead of joining every line with its check. `lines_value_judged_at` is the
-- judgement it was computed at: a row re-judged by code that does not write the value keeps an older time
-- there, and the close then values the lines from the line checks as before. Null on rows judged before
-- this column (the close falls back the same way), so no backfill is needed.
alter table payout_reconciliations
  add column if not exists lines_value bigint,
  add column if not exists lines_value_judged_at timestamptz;
