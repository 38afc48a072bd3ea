-- Bank statements people import (CSV, camt.053, BAI2), and their lines, matched one to one to paid payouts.
create table bank_statements (
  id bigint generated always as identity primary key,
  format text not null check (format in ('csv', 'camt053', 'bai2')),
  -- The bank account the statement is of, as the file names it ('' when it names none, e.g. a plain CSV).
  bank_account text not null,
  file_sha256 bytea not null,
  -- The value dates the statement covers, [covers_from, covers_to] inclusive: a paid payout whose window lies
  -- within an imported statement's dates and that no credit matches is `payout_not_in_bank`.
  covers_from date not null,
  covers_to date not null,
  -- The currencies those dates are covered for: the accounts' currencies the file states, and its lines'.
  currencies text[] not null,
  lines integer not null,
  credits integer not null,
  duplicates integer not null,
  imported_by text not null,
  imported_at timestamptz not null
);

-- Amounts in integer cents, credits positive, debits negative. A line's key: bank account, value date, amount,
-- reference, and its rank among identical lines of that day; importing an overlapping statement adds nothing.
create table bank_lines (
  id bigint generated always as identity primary key,
  statement_id bigint not null references bank_statements (id) on delete cascade,
  bank_account text not null,
  value_date date not null,
  amount bigint not null,
  currency text not null,
  description text not null,
  reference text not null,
  rank integer not null,
  -- The paid payout this credit is matched to (rule 5), one to one; null when unmatched.
  payout_id text unique,
  unique (bank_account, value_date, amount, reference, rank)
);
create index bank_lines_value_date_idx on bank_lines (value_date);
-- Matching is recomputed whole (rule 5): candidates are credits of a payout's currency and amount.
create index bank_lines_credit_idx on bank_lines (currency, amount, value_date) where amount > 0;
create index bank_statements_sha_idx on bank_statements (file_sha256);
