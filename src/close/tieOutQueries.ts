import type { Queryable } from '../db/pool.ts';
import { SUCCEEDED_REFUND } from '../reports/dailyPaymentQueries.ts';
import { MANUAL_CAPTURE, MANUAL_SUCCEEDED_AT, SUCCEEDED_PAYMENT } from './movementQueries.ts';

// How many explaining items of each side the report lists per account and currency.
export const ITEMS_LISTED = 100;

/**
 * The provider's lines held at $1 (the period's end): not `payout` lines, and in no payout created before it
 * (Tally's payout, or the ledger's own line for that payout; a line in a payout neither dates counts as paid
 * out). Each with the instant it counts at: a line whose source Tally knows on that source's business day (a
 * refund's creation; a dispute's, or its win for the funds returned; a payment's success, or its return for
 * what a return hands back), any other on its own `created_at`.
 */
const HELD_LINES = `select l.account_id, l.currency, l.id, l.txn_type, l.net, l.created_at, l.source_id,
         l.source_payment_id,
         case when r.id is not null then coalesce(r.created_at, r.updated_at)
              when d.id is not null then
                case when l.net > 0 and d.status = 'won' then d.status_updated_at else d.created_at end
              when p.id is not null then
                case when l.kind not in ('payment', 'fee') and p.failed_at is not null then p.failed_at
                     when ${MANUAL_CAPTURE} then ${MANUAL_SUCCEEDED_AT} else p.created_at end
              else l.created_at end as counted_at,
         (r.id is not null or d.id is not null or p.id is not null) as known
    from provider_ledger_lines l
    left join payouts o on o.id = l.payout_id
    left join refunds r on r.id = l.source_id
    left join disputes d on d.id = l.source_id
    left join payments p on p.id = l.source_payment_id
   where l.kind <> 'payout'
     and (l.payout_id is null
          or coalesce(o.created_at, (select min(lp.created_at) from provider_ledger_lines lp
                                      where lp.payout_id = l.payout_id and lp.kind = 'payout')) >= $1::timestamptz)`;

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
 * Per account and currency of the ledger, in one pass over the held lines: the signed net of those counted
 * before $1, and those of them whose source Tally has no item for.
 */
export async function sumProviderHeld(db: Queryable, to: Date): Promise<ProviderHeldRow[]> {
  const { rows } = await db.query<ProviderHeldRow>(
    `select account_id, currency, sum(net)::bigint as provider_held_end,
            coalesce((array_agg(jsonb_build_object('id', id, 'txn_type', txn_type, 'net', net,
                        'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                        'source_id', source_id, 'source_payment_id', source_payment_id)
                      order by created_at, id) filter (where not known))[1:${ITEMS_LISTED}], '{}') as lines_without_item
       from (${HELD_LINES}) held where counted_at < $1::timestamptz
      group by 1, 2`,
    [to],
  );
  return rows.map((row) => ({ ...row, provider_held_end: Number(row.provider_held_end) }));
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
 * Tally's items held at $1 of accounts with a ledger listing that the provider lists no line for, the first
 * ITEMS_LISTED of each key: a sale (net of its fees), a refund or a dispute withdrawn, counted before $1 and
 * since the payout sync's listing start (older ones count only once a payout contains them), in no payout
 * created before $1.
 */
export async function listItemsWithoutLine(db: Queryable, to: Date): Promise<ItemWithoutLineRow[]> {
  const { rows } = await db.query<ItemWithoutLineRow>(
    `with listed as (
       select s.account_id, s.listed_from from payout_sync_accounts s
         join provider_ledger_listings g on g.account_id = s.account_id and g.listed_at is not null
     ), items as (
       select p.account_id, p.currency, 'payment' as type, p.id,
              p.amount - p.fees_processing - p.fees_platform - p.fees_other as amount,
              case when ${MANUAL_CAPTURE} then ${MANUAL_SUCCEEDED_AT} else p.created_at end as at
         from payments p
        where ${SUCCEEDED_PAYMENT} and p.created_at < $1::timestamptz
          and exists (select 1 from listed s where s.account_id = p.account_id and p.created_at >= s.listed_from)
          and not exists (select 1 from payout_lines pl join payouts o on o.id = pl.payout_id
                           where pl.source_payment_id = p.id and pl.kind = 'payment' and o.created_at < $1::timestamptz)
          and not exists (select 1 from provider_ledger_lines l where l.source_payment_id = p.id)
       union all
       select p.account_id, p.currency, 'refund', r.id, -r.amount, coalesce(r.created_at, r.updated_at)
         from refunds r join payments p on p.id = r.payment_id
        where r.status in ${SUCCEEDED_REFUND} and coalesce(r.created_at, r.updated_at) < $1::timestamptz
          and exists (select 1 from listed s
                       where s.account_id = p.account_id and coalesce(r.created_at, r.updated_at) >= s.listed_from)
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
