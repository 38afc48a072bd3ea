-- Each payment's first payout kept beside what the close reads of it (docs/decisions/0022-payment-payouts.md), so
-- the payments awaiting payout at a period's end are read from an index instead of every payment against every
-- payout line. Statement triggers keep one row per payment: the payment's own writes set its facts; its lines'
-- and their payouts' writes set `first_payout_at`, the creation of the first payout Tally knows to contain it;
-- the provider's ledger lines count themselves in `ledger_lines`. Neither side reads a row the other may be
-- writing without meeting it on this row: an insert on conflict waits for the other's uncommitted row, and each
-- side only adds what it knows (the earliest payout wins, counts add up). The rows
-- stored before are counted by the backfill 0038_payment_payouts (src/db/backfills.ts); until it has finished,
-- the close reads the payments themselves.
set local lock_timeout = '5s';

create table if not exists payment_payouts (
  payment_id text primary key,
  -- False until the payment itself is stored (its lines may come first), and again once it is deleted.
  known boolean not null default false,
  account_type text,
  account_id text,
  currency text,
  status text,
  amount bigint,
  -- Net of fees, as the provider's ledger line carries it.
  net bigint,
  created_at timestamptz,
  -- When it counts: its creation, or for a manual capture its success (MANUAL_SUCCEEDED_AT).
  at timestamptz,
  -- Settled money (SUCCEEDED_PAYMENT): what a payout pays.
  settled boolean,
  first_payout_at timestamptz,
  -- How many lines of the provider's ledger name it (any line, held or paid out): none makes it an item the
  -- provider has no line for, in the close's tie-out.
  ledger_lines integer not null default 0
);
-- Its index for the close is built concurrently by migration 0039.

-- What the close reads of a payment (src/close/movementRules.ts: SUCCEEDED_PAYMENT, MANUAL_SUCCEEDED_AT).
create or replace function payment_payout_facts(p payments)
  returns table (account_type text, account_id text, currency text, status text, amount bigint, net bigint,
                 created_at timestamptz, at timestamptz, settled boolean)
  language sql immutable as $$
  select p.account_type, p.account_id, p.currency, p.status, p.amount,
         p.amount - p.fees_processing - p.fees_platform - p.fees_other, p.created_at,
         case when p.capture_strategy = 'manual' then coalesce(p.succeeded_at, p.captured_at, p.created_at)
              else p.created_at end,
         coalesce(p.status in ('succeeded', 'partially_refunded', 'fully_refunded', 'refunded', 'disputed')
                  or (p.status = 'failed' and (p.succeeded_at is not null or p.returned is true)), false)
$$;

-- The earliest payout Tally knows to contain each payment: what a new payment finds already stored.
create or replace function first_payouts_of(payment_ids text[])
  returns table (payment_id text, first_payout_at timestamptz) language sql stable as $$
  select l.source_payment_id, min(o.created_at) from payout_lines l join payouts o on o.id = l.payout_id
   where l.source_payment_id = any(payment_ids) and l.kind = 'payment'
   group by 1
$$;

-- What the ledger's lines of each payment add to its count, less what the kept row already counts, both as this
-- statement sees them: lines stored before the triggers count once, and a line written meanwhile by a transaction
-- this one cannot see adds itself after (its insert waits for this row).
create or replace function uncounted_ledger_lines(payment_ids text[])
  returns table (payment_id text, lines integer) language sql stable as $$
  select i.id, (select count(*) from provider_ledger_lines l where l.source_payment_id = i.id)::int
               - coalesce((select k.ledger_lines from payment_payouts k where k.payment_id = i.id), 0)
    from unnest(payment_ids) i (id)
$$;

-- Adds payouts to payments: the earliest wins, in whichever order the two sides commit.
create or replace function add_first_payouts(payment_ids text[], created timestamptz[]) returns void
  language sql as $$
  insert into payment_payouts as k (payment_id, first_payout_at)
  select * from unnest(payment_ids, created)
  on conflict (payment_id) do update set first_payout_at = least(k.first_payout_at, excluded.first_payout_at)
   where excluded.first_payout_at < k.first_payout_at or k.first_payout_at is null
$$;

-- A line moved out of a payout, or a payout's creation changed: computed again from the lines. The rows are
-- locked first, so a line of another payout written meanwhile is either seen here (committed before the lock)
-- or adds itself after (its insert waits for the lock), as each statement reads anew.
create or replace function recount_first_payouts(payment_ids text[]) returns void language plpgsql as $$
begin
  insert into payment_payouts (payment_id) select unnest(payment_ids) on conflict do nothing;
  perform 1 from payment_payouts where payment_id = any(payment_ids) order by payment_id for update;
  update payment_payouts k set first_payout_at = f.first_payout_at
    from (select i.id, p.first_payout_at from unnest(payment_ids) i (id)
            left join first_payouts_of(payment_ids) p on p.payment_id = i.id) f
   where k.payment_id = f.id and k.first_payout_at is distinct from f.first_payout_at;
end
$$;

create or replace function keep_payment_payouts() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    update payment_payouts k set known = false, account_type = null, account_id = null, currency = null,
                                 status = null, amount = null, net = null, created_at = null, at = null, settled = null
      from removed p where k.payment_id = p.id;
  elsif tg_op = 'INSERT' then
    insert into payment_payouts as k (payment_id, known, account_type, account_id, currency, status, amount, net,
                                      created_at, at, settled, first_payout_at, ledger_lines)
    select p.id, true, f.*, o.first_payout_at, c.lines
      from added p cross join lateral payment_payout_facts(p) f
      left join first_payouts_of(array(select id from added)) o on o.payment_id = p.id
      join uncounted_ledger_lines(array(select id from added)) c on c.payment_id = p.id
     order by p.id
    on conflict (payment_id) do update set known = true, account_type = excluded.account_type,
      account_id = excluded.account_id, currency = excluded.currency, status = excluded.status,
      amount = excluded.amount, net = excluded.net, created_at = excluded.created_at, at = excluded.at,
      settled = excluded.settled, first_payout_at = least(k.first_payout_at, excluded.first_payout_at),
      ledger_lines = k.ledger_lines + excluded.ledger_lines;
  else
    -- Only what changed what the close reads: most updates (a payment marked projected) change nothing here.
    insert into payment_payouts as k (payment_id, known, account_type, account_id, currency, status, amount, net,
                                      created_at, at, settled)
    select p.id, true, f.*
      from added p join removed r on r.id = p.id
     cross join lateral payment_payout_facts(p) f cross join lateral payment_payout_facts(r) g
     where row(f.*) is distinct from row(g.*)
     order by p.id
    on conflict (payment_id) do update set known = true, account_type = excluded.account_type,
      account_id = excluded.account_id, currency = excluded.currency, status = excluded.status,
      amount = excluded.amount, net = excluded.net, created_at = excluded.created_at, at = excluded.at,
      settled = excluded.settled;
  end if;
  return null;
end
$$;

-- The payouts of a statement's lines (`added`), per payment its earliest.
create or replace function keep_line_payouts() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform recount_first_payouts(array(
      select distinct r.source_payment_id from removed r
       where r.kind = 'payment' and r.source_payment_id is not null order by 1));
    return null;
  end if;
  if tg_op = 'UPDATE' then
    -- Most updates (a line's newer snapshot) move nothing: only the lines that moved count again and add.
    perform recount_first_payouts(array(
      select distinct r.source_payment_id from removed r join added a on a.id = r.id
       where r.kind = 'payment' and r.source_payment_id is not null
         and (a.payout_id, a.kind, a.source_payment_id) is distinct from (r.payout_id, r.kind, r.source_payment_id)
       order by 1));
    perform add_first_payouts(array_agg(payment_id order by payment_id), array_agg(created order by payment_id))
       from (select l.source_payment_id as payment_id, min(o.created_at) as created
               from added l join removed r on r.id = l.id join payouts o on o.id = l.payout_id
              where l.kind = 'payment' and l.source_payment_id is not null and o.created_at is not null
                and (l.payout_id, l.kind, l.source_payment_id) is distinct from (r.payout_id, r.kind, r.source_payment_id)
              group by 1) f;
    return null;
  end if;
  perform add_first_payouts(array_agg(payment_id order by payment_id), array_agg(created order by payment_id))
     from (select l.source_payment_id as payment_id, min(o.created_at) as created
             from added l join payouts o on o.id = l.payout_id
            where l.kind = 'payment' and l.source_payment_id is not null and o.created_at is not null
            group by 1) f;
  return null;
end
$$;

create or replace function keep_payout_payouts() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform recount_first_payouts(array(
      select distinct l.source_payment_id from removed r join payout_lines l on l.payout_id = r.id
       where l.kind = 'payment' and l.source_payment_id is not null order by 1));
  elsif tg_op = 'UPDATE' then
    perform recount_first_payouts(array(
      select distinct l.source_payment_id
        from removed r join added a on a.id = r.id and a.created_at is distinct from r.created_at
        join payout_lines l on l.payout_id = r.id
       where l.kind = 'payment' and l.source_payment_id is not null order by 1));
  else
    perform add_first_payouts(array_agg(payment_id order by payment_id), array_agg(created order by payment_id))
       from (select l.source_payment_id as payment_id, min(o.created_at) as created
               from added o join payout_lines l on l.payout_id = o.id
              where l.kind = 'payment' and l.source_payment_id is not null and o.created_at is not null
              group by 1) f;
  end if;
  return null;
end
$$;

-- The lines of the provider's ledger each statement adds or removes, counted per payment they name.
create or replace function count_ledger_lines() returns trigger language plpgsql as $$
begin
  if tg_op = 'TRUNCATE' then
    update payment_payouts set ledger_lines = 0 where ledger_lines <> 0;
    return null;
  end if;
  if tg_op = 'INSERT' then
    insert into payment_payouts as k (payment_id, ledger_lines)
    select source_payment_id, count(*) from added where source_payment_id is not null group by 1 order by 1
    on conflict (payment_id) do update set ledger_lines = k.ledger_lines + excluded.ledger_lines;
  elsif tg_op = 'UPDATE' then
    insert into payment_payouts as k (payment_id, ledger_lines)
    select payment_id, sum(lines) from (
      select a.source_payment_id as payment_id, 1 as lines from added a join removed r using (account_id, id)
       where a.source_payment_id is distinct from r.source_payment_id and a.source_payment_id is not null
      union all
      select r.source_payment_id, -1 from added a join removed r using (account_id, id)
       where a.source_payment_id is distinct from r.source_payment_id and r.source_payment_id is not null) c
     group by 1 order by 1
    on conflict (payment_id) do update set ledger_lines = k.ledger_lines + excluded.ledger_lines;
  else
    insert into payment_payouts as k (payment_id, ledger_lines)
    select source_payment_id, -count(*) from removed where source_payment_id is not null group by 1 order by 1
    on conflict (payment_id) do update set ledger_lines = k.ledger_lines + excluded.ledger_lines;
  end if;
  return null;
end
$$;

-- The rebuild truncates payments, payouts and payout lines together, then projects them again.
create or replace function forget_payment_payouts() returns trigger language plpgsql as $$
begin
  truncate payment_payouts;
  return null;
end
$$;

create or replace trigger payments_payouts_inserted after insert on payments
  referencing new table as added for each statement execute function keep_payment_payouts();
create or replace trigger payments_payouts_updated after update on payments
  referencing old table as removed new table as added for each statement execute function keep_payment_payouts();
create or replace trigger payments_payouts_deleted after delete on payments
  referencing old table as removed for each statement execute function keep_payment_payouts();
create or replace trigger payments_payouts_truncated after truncate on payments
  for each statement execute function forget_payment_payouts();

create or replace trigger payout_lines_payouts_inserted after insert on payout_lines
  referencing new table as added for each statement execute function keep_line_payouts();
create or replace trigger payout_lines_payouts_updated after update on payout_lines
  referencing old table as removed new table as added for each statement execute function keep_line_payouts();
create or replace trigger payout_lines_payouts_deleted after delete on payout_lines
  referencing old table as removed for each statement execute function keep_line_payouts();
create or replace trigger payout_lines_payouts_truncated after truncate on payout_lines
  for each statement execute function forget_payment_payouts();

create or replace trigger payouts_payouts_inserted after insert on payouts
  referencing new table as added for each statement execute function keep_payout_payouts();
create or replace trigger payouts_payouts_updated after update on payouts
  referencing old table as removed new table as added for each statement execute function keep_payout_payouts();
create or replace trigger payouts_payouts_deleted after delete on payouts
  referencing old table as removed for each statement execute function keep_payout_payouts();
create or replace trigger payouts_payouts_truncated after truncate on payouts
  for each statement execute function forget_payment_payouts();

create or replace trigger provider_ledger_lines_payouts_inserted after insert on provider_ledger_lines
  referencing new table as added for each statement execute function count_ledger_lines();
create or replace trigger provider_ledger_lines_payouts_updated after update on provider_ledger_lines
  referencing old table as removed new table as added for each statement execute function count_ledger_lines();
create or replace trigger provider_ledger_lines_payouts_deleted after delete on provider_ledger_lines
  referencing old table as removed for each statement execute function count_ledger_lines();
create or replace trigger provider_ledger_lines_payouts_truncated after truncate on provider_ledger_lines
  for each statement execute function count_ledger_lines();
