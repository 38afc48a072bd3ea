import type { Queryable } from '../db/pool.ts';
import { PAYABLE_PAYMENT_STATUSES, sqlStatuses } from '../domain/paymentStatuses.ts';
import { MANUAL_CAPTURE, MANUAL_SUCCEEDED_AT, SUCCEEDED_PAYMENT } from './movementRules.ts';
import { paymentPayoutsKept } from './paymentPayoutsKept.ts';
import type { ItemWithoutLineRow } from './tieOutQueries.ts';

export type AwaitingPayoutRow = {
  account_type: string;
  account_id: string;
  currency: string;
  payments: number;
  amount: number;
};

// The settled payments of accounts whose payouts Tally syncs, created before $1, in no payout created before it,
// and which of them the provider's ledger names in no line: from the rows, each payment against every payout line
// and the held lines hashed once (the whole ledger looked up only for the few they leave), found once for both;
// or from the kept first payouts and ledger counts (migration 0038), each by its partial index (migrations 0039
// and 0040: those without a line are few, and read apart).
const FROM_ROWS = {
  unpaid: `
    select p.account_type, p.account_id, p.currency, p.id, p.status, p.amount, p.created_at,
           p.amount - p.fees_processing - p.fees_platform - p.fees_other as net,
           case when ${MANUAL_CAPTURE} then ${MANUAL_SUCCEEDED_AT} else p.created_at end as at
      from payments p join payout_sync_accounts s on s.account_id = p.account_id
     where p.created_at < $1::timestamptz and ${SUCCEEDED_PAYMENT}
       and not exists (select 1 from payout_lines l join payouts o on o.id = l.payout_id
                        where l.source_payment_id = p.id and l.kind = 'payment' and o.created_at < $1::timestamptz)`,
  held: `, held as materialized (
    select h.source_payment_id as id from provider_ledger_lines h
     where h.payout_id is null and h.source_payment_id is not null)`,
  withoutLineOf: 'unpaid',
  withoutLine: `not exists (select 1 from held h where h.id = u.id)
                and not exists (select 1 from provider_ledger_lines l where l.source_payment_id = u.id)`,
};
const KEPT = {
  unpaid: `
    select k.account_type, k.account_id, k.currency, k.status, k.amount
      from payment_payouts k join payout_sync_accounts s on s.account_id = k.account_id
     where k.settled and coalesce(k.first_payout_at, 'infinity'::timestamptz) >= $1::timestamptz
       and k.created_at < $1::timestamptz`,
  held: '',
  // Looked up for the listed accounts only (their ids as an array, which the index scan takes): the index also
  // holds the payments of accounts whose ledger is not listed, which have no line for ever.
  withoutLineOf: `(
    select k.account_id, k.currency, k.payment_id as id, k.created_at, k.net, k.at from payment_payouts k
     where k.account_id = any(array(select g.account_id from provider_ledger_listings g
                                     where g.listed_at is not null))
       and k.settled and k.ledger_lines = 0
       and coalesce(k.first_payout_at, 'infinity'::timestamptz) >= $1::timestamptz
       and k.created_at < $1::timestamptz)`,
  withoutLine: 'true',
};

type UnpaidRow =
  | ({ part: 'awaiting' } & AwaitingPayoutRow)
  | ({ part: 'without_line'; type: 'payment' } & Omit<ItemWithoutLineRow, 'type'>);

/**
 * The succeeded payments of accounts whose payouts Tally syncs that no payout created before `to` (the period's
 * end) contains, for two uses:
 * - `awaiting`: those still to be paid out (not refunded in full) created before `to`, summed per account key;
 *   as at the end, so a payout of 2 November leaves them awaiting payout in October.
 * - `withoutLine`: for the tie-out, those of accounts with a ledger listing, since its start and counted before
 *   `to`, that the provider lists no line for: the first `listed` of each account and currency, net of fees.
 */
export async function listUnpaidPayments(db: Queryable, to: Date, listed: number) {
  const from = (await paymentPayoutsKept(db)) ? KEPT : FROM_ROWS;
  const { rows } = await db.query<UnpaidRow>(
    `with unpaid as materialized (${from.unpaid})${from.held}
     select 'awaiting' as part, account_type, account_id, currency, count(*)::int as payments,
            sum(amount)::bigint as amount, null as type, null as id, null::timestamptz as at
       from unpaid where status in ${sqlStatuses(PAYABLE_PAYMENT_STATUSES)}
      group by 2, 3, 4
     union all
     select 'without_line', null, account_id, currency, null, net, 'payment', id, at
       from (select u.*, row_number() over (partition by u.account_id, u.currency order by u.at, u.id) as n
               from ${from.withoutLineOf} u
               join payout_sync_accounts s on s.account_id = u.account_id and u.created_at >= s.listed_from
               join provider_ledger_listings g on g.account_id = u.account_id and g.listed_at is not null
              where u.at < $1::timestamptz and ${from.withoutLine}) numbered
      where n <= $2::int
      order by 1, 2, 3, 4, 9, 8`,
    [to, listed],
  );
  return {
    awaiting: rows.flatMap((row): AwaitingPayoutRow[] =>
      row.part === 'awaiting'
        ? [
            {
              account_type: row.account_type,
              account_id: row.account_id,
              currency: row.currency,
              payments: row.payments,
              amount: Number(row.amount),
            },
          ]
        : [],
    ),
    withoutLine: rows.flatMap((row): ItemWithoutLineRow[] =>
      row.part === 'without_line'
        ? [
            {
              account_id: row.account_id,
              currency: row.currency,
              type: row.type,
              id: row.id,
              amount: Number(row.amount),
              at: row.at,
            },
          ]
        : [],
    ),
  };
}
