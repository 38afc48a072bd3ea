-- Each payment's fee totals, kept with the payment so that the daily report sums the columns of one scan of
-- the day's payments instead of joining every fee of the day. The projection computes them from the fee
-- list of the snapshot whose fees are shown (the same snapshot as the payment_fees rows); a payment with no
-- fee list shown counts 0, as a payment without fee rows always did. `fee_amount` is the provider's own
-- field, not one of these.
alter table payments
  add column fees_total bigint not null default 0,
  -- type processing_fee
  add column fees_processing bigint not null default 0,
  -- type platform_fee
  add column fees_platform bigint not null default 0,
  -- any other type
  add column fees_other bigint not null default 0,
  -- source_configuration_id set: a fee of a fee configuration
  add column fees_configured bigint not null default 0,
  -- source_configuration_id null: a fee set explicitly on the payment
  add column fees_explicit bigint not null default 0;

update payments p
   set fees_total = f.total, fees_processing = f.processing, fees_platform = f.platform, fees_other = f.other,
       fees_configured = f.configured, fees_explicit = f.explicit
  from (select payment_id,
               sum(amount) as total,
               coalesce(sum(amount) filter (where type = 'processing_fee'), 0) as processing,
               coalesce(sum(amount) filter (where type = 'platform_fee'), 0) as platform,
               coalesce(sum(amount) filter (where type not in ('processing_fee', 'platform_fee')), 0) as other,
               coalesce(sum(amount) filter (where source_configuration_id is not null), 0) as configured,
               coalesce(sum(amount) filter (where source_configuration_id is null), 0) as explicit
          from payment_fees
         group by payment_id) f
 where f.payment_id = p.id;
