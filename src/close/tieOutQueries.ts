import type { Queryable } from '../db/pool.ts';
import { SUCCEEDED_REFUND } from '../reports/dailyPaymentQueries.ts';
import { MANUAL_CAPTURE, MANUAL_SUCCEEDED_AT, REFUNDS_WITH_KEY } from './movementRules.ts';
import { paymentPayoutsKept } from './paymentPayoutsKept.ts';

// How many explaining items of each side the report lists per account and currency.
export const ITEMS_LISTED = 100;

export type LineWithoutItem = {
  id: string;
  txn_type: string;
  net: number;
  created_at: string;
  source_id: string | null;
  source_payment_id: string | null;
};

export type ProviderHeldRow = {
  account_id: string;
  currency: string;
  provider_held_end: number;
  /** The held lines whose source Tally has no item for, the first ITEMS_LISTED, oldest first. */
  lines_without_item: LineWithoutItem[];
};

/**
 * Per account and currency of the ledger: the provider's lines held at `to` (the period's end), as the signed net
 * of those counted before it, and those of them whose source Tally has no item for. Held: not `payout` lines,
 * and in no payout created before `to` (Tally's payout, or the ledger's own line for that payout; a line in a
 * payout neither dates counts as paid out). Each counts at the instant of its source Tally knows, on that
 * source's business day (a refund's creation; a dispute's, or its win for the funds returned; a payment's
 * success, or its return for what a return hands back), any other line on its own `created_at`. One pass, summed
 * per key; the lines without an item are sorted and cut here. A line's payment is read as LINE_PAYMENT says.
 */
export async function sumProviderHeld(db: Queryable, to: Date): Promise<ProviderHeldRow[]> {
  const payment = (await paymentPayoutsKept(db)) ? LINE_PAYMENT.kept : LINE_PAYMENT.rows;
  const { rows } = await db.query<ProviderHeldRow & { unknown: LineWithoutItem[] | null }>(
    `select l.account_id, l.currency, coalesce(sum(l.net) filter (where c.counted_at < $1::timestamptz), 0)::bigint
              as provider_held_end,
            array_agg(jsonb_build_object('id', l.id, 'txn_type', l.txn_type, 'net', l.net,
                        'created_at', to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                        'source_id', l.source_id, 'source_payment_id', l.source_payment_id))
              filter (where c.counted_at < $1::timestamptz and not c.known) as unknown
       from provider_ledger_lines l
       left join refunds r on r.id = l.source_id
       left join disputes d on d.id = l.source_id
       ${payment}
       cross join lateral (
         select case when r.id is not null then coalesce(r.created_at, r.updated_at)
                     when d.id is not null then
                       case when l.net > 0 and d.status = 'won' then d.status_updated_at else d.created_at end
                     when k.payment_id is not null then k.at
                     when p.id is not null then
                       case when l.kind not in ('payment', 'fee') and p.failed_at is not null then p.failed_at
                            when ${MANUAL_CAPTURE} then ${MANUAL_SUCCEEDED_AT} else p.created_at end
                     else l.created_at end as counted_at,
                (r.id is not null or d.id is not null or k.payment_id is not null or p.id is not null) as known) c
      where l.kind <> 'payout' and (l.payout_id is null or l.payout_id = any($2::text[]))
      group by 1, 2`,
    [to, await listPayoutsAfter(db, to)],
  );
  return rows.map(({ unknown, ...row }) => ({
    ...row,
    provider_held_end: Number(row.provider_held_end),
    lines_without_item: (unknown ?? []).sort(byCreatedThenId).slice(0, ITEMS_LISTED),
  }));
}

// A held line's payment, `p`, or the instant it counts at, `k.at`. From the rows: every payment, hashed against
// the lines. Once the kept first payouts count every payment (paymentPayoutsKept): a sale's or fee's line takes the
// sale's instant from the settled payments no payout created before $1 contains, read by their index (migration
// 0039). Those are the payments nearly every held line names, a fraction of all payments. The few other lines
// (a return's, a payment paid out or unknown) look theirs up one by one: `offset 0` keeps that a nested loop.
const LINE_PAYMENT = {
  rows: `left join payments p on p.id = l.source_payment_id
         cross join lateral (select null::text as payment_id, null::timestamptz as at) k`,
  kept: `left join (select payment_id, at from payment_payouts
                     where settled and coalesce(first_payout_at, 'infinity'::timestamptz) >= $1::timestamptz) k
           on k.payment_id = l.source_payment_id and l.kind in ('payment', 'fee')
         left join lateral (
           select p.id, p.failed_at, p.capture_strategy, p.succeeded_at, p.captured_at, p.created_at from payments p
            where p.id = l.source_payment_id and k.payment_id is null and r.id is null and d.id is null
           offset 0) p on true`,
};

const byCreatedThenId = (a: LineWithoutItem, b: LineWithoutItem) =>
  a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1;

/**
 * The payouts not yet created at `to`: Tally's created since, and those only the ledger lists whose first
 * `payout` line is that late. A list apart, so the held lines' pass compares ids and stays parallel.
 */
async function listPayoutsAfter(db: Queryable, to: Date): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id from payouts where created_at >= $1::timestamptz
     union all
     select lp.payout_id from provider_ledger_lines lp
      where lp.kind = 'payout' and lp.payout_id is not null
        and not exists (select 1 from payouts o where o.id = lp.payout_id)
      group by lp.payout_id
     having min(lp.created_at) >= $1::timestamptz`,
    [to],
  );
  return rows.map((row) => row.id);
}

export type ItemWithoutLineRow = {
  account_id: string;
  currency: string;
  type: 'payment' | 'refund' | 'dispute';
  id: string;
  amount: number;
  at: Date;
};

/**
 * Tally's refunds and disputes held at $1 of accounts with a ledger listing that the provider lists no line for,
 * the first ITEMS_LISTED of each key: a refund or a dispute withdrawn, counted before $1 and since the payout
 * sync's listing start (older ones count only once a payout contains them), in no payout created before $1.
 * The sales are found with the payments awaiting payout (listUnpaidPayments).
 */
export async function listItemsWithoutLine(db: Queryable, to: Date): Promise<ItemWithoutLineRow[]> {
  const { rows } = await db.query<ItemWithoutLineRow>(
    `with listed as (
       select s.account_id, s.listed_from from payout_sync_accounts s
         join provider_ledger_listings g on g.account_id = s.account_id and g.listed_at is not null
     ), items as (
       select r.account_id, r.currency, 'refund' as type, r.id, -r.amount as amount,
              coalesce(r.created_at, r.updated_at) as at
         from ${REFUNDS_WITH_KEY} r
        where r.status in ${SUCCEEDED_REFUND} and coalesce(r.created_at, r.updated_at) < $1::timestamptz
          and exists (select 1 from listed s
                       where s.account_id = r.account_id and coalesce(r.created_at, r.updated_at) >= s.listed_from)
          and not exists (select 1 from payout_lines pl join payouts o on o.id = pl.payout_id
                           where pl.source_id = r.id and pl.kind = 'refund' and o.created_at < $1::timestamptz)
          and not exists (select 1 from provider_ledger_lines l where l.source_id = r.id)
       union all
       select d.account_id, d.currency, 'dispute', d.id, -d.amount, d.created_at
         from disputes d
        where d.amount is not null and d.created_at < $1::timestamptz
          and exists (select 1 from listed s where s.account_id = d.account_id and d.created_at >= s.listed_from)
          and not exists (select 1 from provider_ledger_lines l where l.source_id = d.id)
     )
     select account_id, currency, type, id, amount, at
       from (select items.*, row_number() over (partition by account_id, currency order by at, id) as n
               from items where at < $1::timestamptz) numbered
      where n <= ${ITEMS_LISTED}
      order by account_id, currency, at, id`,
    [to],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}

export type LedgerStateRow = {
  account_id: string;
  payout_synced: boolean;
  listed_at: Date | null;
  full_listed_at: Date | null;
  failed_at: Date | null;
  error: string | null;
};

/** Every account the payout sync lists or whose ledger Tally holds, with its listing's state. */
export async function listLedgerStates(db: Queryable): Promise<LedgerStateRow[]> {
  const { rows } = await db.query<LedgerStateRow>(
    `select coalesce(s.account_id, g.account_id) as account_id, s.account_id is not null as payout_synced,
            g.listed_at, g.full_listed_at, g.failed_at, g.error
       from payout_sync_accounts s full join provider_ledger_listings g on g.account_id = s.account_id`,
  );
  return rows;
}
