-- What payout reconciliation found for each line of a judged payout: the Tally object it matched and whether
-- it agrees (rule 2). Replaced whole each time the payout is judged again.
create table payout_line_checks (
  line_id text primary key,
  payout_id text not null,
  -- The Tally object the line was compared with: a payment, payment fee, refund or returned fee id (or null).
  matched_type text check (matched_type in ('payment', 'payment_fee', 'refund', 'returned_fee')),
  matched_id text,
  status text not null check (status in ('ok', 'mismatch', 'payment_unknown', 'not_checked')),
  -- Integer cents, from the merchant balance's view like the line: what Tally expected and what the line says.
  expected bigint,
  actual bigint,
  checked_at timestamptz not null
);
create index payout_line_checks_payout_idx on payout_line_checks (payout_id);

-- The last judgement of each payout: when, and what its lines came to. A payout with lines not all loaded
-- has no row here (it is unjudged, never judged on a partial list).
create table payout_reconciliations (
  payout_id text primary key,
  account_id text not null,
  judged_at timestamptz not null,
  lines_checked integer not null,
  lines_mismatched integer not null
);
