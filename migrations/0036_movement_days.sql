-- The close's sales, fees, refunds and returned fees kept as money moves (docs/decisions/0021-movement-days.md):
-- per account key, business day and kind, the sum of what the rows say. The days are those of one zone,
-- movement_days_zone, which `release` sets to BUSINESS_TIME_ZONE and fills (src/close/keepMovementDays.ts);
-- until then the triggers keep nothing and the close reads the rows. Statement triggers on payments, refunds
-- and returned_fees append each statement's change, netted, to movement_day_deltas, so concurrent writers never
-- wait on one row; the worker folds the deltas into movement_days after each batch. The kept sums are always
-- movement_days plus movement_day_deltas.
set local lock_timeout = '5s';

create table if not exists movement_days_zone (
  only_row boolean primary key default true check (only_row),
  -- Null: nothing is kept.
  time_zone text,
  -- Whether the rows stored before the zone was set are counted: until they are, the close reads the rows.
  complete boolean not null default false
);
insert into movement_days_zone (only_row) values (true) on conflict do nothing;

-- A payment's currency may be unknown: kept as '' (the close reads it back as none), so it is part of the key.
create table if not exists movement_days (
  account_type text not null,
  account_id text not null,
  currency text not null,
  day date not null,
  kind text not null,
  amount bigint not null,
  primary key (day, account_type, account_id, currency, kind)
);

create table if not exists movement_day_deltas (
  account_type text not null,
  account_id text not null,
  currency text not null,
  day date not null,
  kind text not null,
  amount bigint not null
);

-- What a payment adds: a succeeded payment's amount and fees, on its creation's day, or for a manual capture
-- on its success's (the rules of src/close/movementRules.ts: SUCCEEDED_PAYMENT, MANUAL_SUCCEEDED_AT).
create or replace function payment_movements(p payments, zone text)
  returns table (account_type text, account_id text, currency text, day date, kind text, amount bigint)
  language sql stable as $$
  select p.account_type, p.account_id, coalesce(p.currency, ''),
         ((case when p.capture_strategy = 'manual' then coalesce(p.succeeded_at, p.captured_at, p.created_at)
                else p.created_at end) at time zone zone)::date,
         v.kind, v.amount
    from (values ('sale', p.amount), ('fee_processing', p.fees_processing), ('fee_platform', p.fees_platform),
                 ('fee_other', p.fees_other)) v (kind, amount)
   where v.amount <> 0 and p.created_at is not null
     and (p.status in ('succeeded', 'partially_refunded', 'fully_refunded', 'refunded', 'disputed')
          or (p.status = 'failed' and (p.succeeded_at is not null or p.returned is true)))
$$;

create or replace function returned_fee_kind(type text) returns text language sql immutable as $$
  select 'fee_returned_' || case when type = 'processing_fee' then 'processing'
                                 when type = 'platform_fee' then 'platform' else 'other' end
$$;

-- What a refund adds: a succeeded refund that carries its account key, and the fees it returned (as stored
-- now), on its creation's day (its first snapshot's when the provider gave none). A refund without a key yet
-- is read by the close from the rows.
create or replace function refund_movements(r refunds, zone text)
  returns table (account_type text, account_id text, currency text, day date, kind text, amount bigint)
  language sql stable as $$
  select r.account_type, r.account_id, coalesce(r.currency, ''),
         (coalesce(r.created_at, r.updated_at) at time zone zone)::date,
         'refund', r.amount
   where r.amount <> 0 and r.account_id is not null and r.status in ('succeeded', 'success')
  union all
  select r.account_type, r.account_id, coalesce(r.currency, ''),
         (coalesce(r.created_at, r.updated_at) at time zone zone)::date,
         returned_fee_kind(f.type), f.returned_amount
    from returned_fees f
   where f.refund_id = r.id and f.returned_amount <> 0 and r.account_id is not null
     and r.status in ('succeeded', 'success')
$$;

-- What a returned fee adds, with its refund as stored now. Every writer of returned fees holds its refund's
-- row locked (the projection upserts the refund first), so a refund and its fees never change in two
-- transactions at once and each trigger reads the other side as committed.
create or replace function returned_fee_movements(f returned_fees, zone text)
  returns table (account_type text, account_id text, currency text, day date, kind text, amount bigint)
  language sql stable as $$
  select r.account_type, r.account_id, coalesce(r.currency, ''),
         (coalesce(r.created_at, r.updated_at) at time zone zone)::date,
         returned_fee_kind(f.type), f.returned_amount
    from refunds r
   where r.id = f.refund_id and f.returned_amount <> 0 and r.account_id is not null
     and r.status in ('succeeded', 'success')
$$;

-- One function per table: the rows a statement added count, those it removed count negated, netted per day,
-- so an update that changes nothing the close reads appends nothing.
create or replace function record_payment_movements() returns trigger language plpgsql as $$
declare
  zone text := (select time_zone from movement_days_zone);
begin
  if zone is null then
    return null;
  end if;
  if tg_op = 'INSERT' then
    insert into movement_day_deltas select m.account_type, m.account_id, m.currency, m.day, m.kind, sum(m.amount)
      from added p cross join lateral payment_movements(p, zone) m group by 1, 2, 3, 4, 5;
  elsif tg_op = 'UPDATE' then
    insert into movement_day_deltas select account_type, account_id, currency, day, kind, sum(amount)
      from (select m.* from added p cross join lateral payment_movements(p, zone) m
            union all
            select m.account_type, m.account_id, m.currency, m.day, m.kind, -m.amount
              from removed p cross join lateral payment_movements(p, zone) m) c
     group by 1, 2, 3, 4, 5 having sum(amount) <> 0;
  else
    insert into movement_day_deltas select m.account_type, m.account_id, m.currency, m.day, m.kind, -sum(m.amount)
      from removed p cross join lateral payment_movements(p, zone) m group by 1, 2, 3, 4, 5;
  end if;
  return null;
end
$$;

create or replace function record_refund_movements() returns trigger language plpgsql as $$
declare
  zone text := (select time_zone from movement_days_zone);
begin
  if zone is null then
    return null;
  end if;
  if tg_op = 'INSERT' then
    insert into movement_day_deltas select m.account_type, m.account_id, m.currency, m.day, m.kind, sum(m.amount)
      from added r cross join lateral refund_movements(r, zone) m group by 1, 2, 3, 4, 5;
  elsif tg_op = 'UPDATE' then
    insert into movement_day_deltas select account_type, account_id, currency, day, kind, sum(amount)
      from (select m.* from added r cross join lateral refund_movements(r, zone) m
            union all
            select m.account_type, m.account_id, m.currency, m.day, m.kind, -m.amount
              from removed r cross join lateral refund_movements(r, zone) m) c
     group by 1, 2, 3, 4, 5 having sum(amount) <> 0;
  else
    insert into movement_day_deltas select m.account_type, m.account_id, m.currency, m.day, m.kind, -sum(m.amount)
      from removed r cross join lateral refund_movements(r, zone) m group by 1, 2, 3, 4, 5;
  end if;
  return null;
end
$$;

create or replace function record_returned_fee_movements() returns trigger language plpgsql as $$
declare
  zone text := (select time_zone from movement_days_zone);
begin
  if zone is null then
    return null;
  end if;
  if tg_op = 'INSERT' then
    insert into movement_day_deltas select m.account_type, m.account_id, m.currency, m.day, m.kind, sum(m.amount)
      from added f cross join lateral returned_fee_movements(f, zone) m group by 1, 2, 3, 4, 5;
  elsif tg_op = 'UPDATE' then
    insert into movement_day_deltas select account_type, account_id, currency, day, kind, sum(amount)
      from (select m.* from added f cross join lateral returned_fee_movements(f, zone) m
            union all
            select m.account_type, m.account_id, m.currency, m.day, m.kind, -m.amount
              from removed f cross join lateral returned_fee_movements(f, zone) m) c
     group by 1, 2, 3, 4, 5 having sum(amount) <> 0;
  else
    insert into movement_day_deltas select m.account_type, m.account_id, m.currency, m.day, m.kind, -sum(m.amount)
      from removed f cross join lateral returned_fee_movements(f, zone) m group by 1, 2, 3, 4, 5;
  end if;
  return null;
end
$$;

-- A truncate (the rebuild's reset) changes no row a trigger sees: it empties the kinds its table gives.
create or replace function forget_movements() returns trigger language plpgsql as $$
begin
  delete from movement_days where kind = any(tg_argv);
  delete from movement_day_deltas where kind = any(tg_argv);
  return null;
end
$$;

create or replace trigger payments_movements_inserted after insert on payments
  referencing new table as added for each statement execute function record_payment_movements();
create or replace trigger payments_movements_updated after update on payments
  referencing old table as removed new table as added
  for each statement execute function record_payment_movements();
create or replace trigger payments_movements_deleted after delete on payments
  referencing old table as removed for each statement execute function record_payment_movements();
create or replace trigger payments_movements_truncated after truncate on payments
  for each statement execute function forget_movements('sale', 'fee_processing', 'fee_platform', 'fee_other');

create or replace trigger refunds_movements_inserted after insert on refunds
  referencing new table as added for each statement execute function record_refund_movements();
create or replace trigger refunds_movements_updated after update on refunds
  referencing old table as removed new table as added
  for each statement execute function record_refund_movements();
create or replace trigger refunds_movements_deleted after delete on refunds
  referencing old table as removed for each statement execute function record_refund_movements();
create or replace trigger refunds_movements_truncated after truncate on refunds
  for each statement execute function forget_movements('refund', 'fee_returned_processing', 'fee_returned_platform',
                                                       'fee_returned_other');

create or replace trigger returned_fees_movements_inserted after insert on returned_fees
  referencing new table as added for each statement execute function record_returned_fee_movements();
create or replace trigger returned_fees_movements_updated after update on returned_fees
  referencing old table as removed new table as added
  for each statement execute function record_returned_fee_movements();
create or replace trigger returned_fees_movements_deleted after delete on returned_fees
  referencing old table as removed for each statement execute function record_returned_fee_movements();
create or replace trigger returned_fees_movements_truncated after truncate on returned_fees
  for each statement execute function forget_movements('fee_returned_processing', 'fee_returned_platform',
                                                       'fee_returned_other');
