import type { Queryable } from '../db/pool.ts';
import { ACCOUNT_TYPE_OF } from './movementQueries.ts';

export type OpenFindingRow = {
  code: string;
  status: string;
  account_id: string | null;
  currency: string | null;
  findings: number;
  at_stake: number;
  /** The group's first 20 findings by id (`fnd_…`), for links to them. */
  ids: string[];
  /** Accepted findings only: their ids and the notes they were accepted with. */
  accepted: { id: string; note: string | null }[] | null;
};

/**
 * Findings not resolved whose subject falls in the period: a payment or payout by its creation, a payout line
 * by its payout's, a period by its name, anything else by when it was first seen. Grouped by code, status
 * (accepted apart, with their notes), account and currency, with the first ids of each group.
 */
export async function listPeriodFindings(
  db: Queryable,
  period: string,
  from: Date,
  to: Date,
): Promise<OpenFindingRow[]> {
  const { rows } = await db.query<OpenFindingRow>(
    `with current as (
       select f.id, f.code, f.status, f.account_id, f.currency, f.at_stake,
              case when f.subject_type = 'period' then null
                   else coalesce(p.created_at, o.created_at, lo.created_at, f.first_seen_at) end as at
         from findings f
         left join payments p on f.subject_type = 'payment' and p.id = f.subject_id
         left join payouts o on f.subject_type = 'payout' and o.id = f.subject_id
         left join payout_lines l on f.subject_type = 'balance_transaction' and l.id = f.subject_id
         left join payouts lo on lo.id = l.payout_id
        where f.status <> 'resolved'
          and (f.subject_type <> 'period' or f.subject_id like $1::text || ':%')
     )
     select code, bucket as status, account_id, currency,
            count(*)::int as findings, coalesce(sum(at_stake), 0)::bigint as at_stake,
            (array_agg('fnd_' || id order by id))[1:20] as ids,
            case when bucket = 'accepted' then jsonb_agg(jsonb_build_object('id', 'fnd_' || id, 'note',
              (select h.note from finding_history h where h.finding_id = c.id and h.action = 'accept'
                order by h.id desc limit 1)) order by id) end as accepted
       from (select *, case when status = 'accepted' then 'accepted' else 'open' end as bucket from current) c
      where at is null or (at >= $2::timestamptz and at < $3::timestamptz)
      group by 1, 2, 3, 4
      order by 2 desc, 1, 3, 4`,
    [period, from, to],
  );
  return rows;
}

export type AwaitingPayoutRow = {
  account_type: string;
  account_id: string;
  currency: string;
  payments: number;
  amount: number;
};

/** Succeeded payments created before the period's end, of accounts whose payouts Tally syncs, in no payout. */
export async function sumPaymentsAwaitingPayout(db: Queryable, to: Date): Promise<AwaitingPayoutRow[]> {
  const { rows } = await db.query<AwaitingPayoutRow>(
    `select p.account_type, p.account_id, p.currency, count(*)::int as payments, sum(p.amount)::bigint as amount
       from payments p join payout_sync_accounts s on s.account_id = p.account_id
      where p.created_at < $1::timestamptz
        and p.status in ('succeeded', 'partially_refunded', 'disputed')
        and not exists (select 1 from payout_lines l where l.source_payment_id = p.id and l.kind = 'payment')
      group by 1, 2, 3
      order by 1, 2, 3`,
    [to],
  );
  return rows;
}

export type PayoutNotInBankRow = {
  id: string;
  account_type: string;
  account_id: string;
  currency: string;
  amount: number;
  status: string;
  created_at: Date;
};

/** Payouts created before the period's end, not failed or canceled, that no bank statement credit confirms. */
export async function listPayoutsNotInBank(db: Queryable, to: Date): Promise<PayoutNotInBankRow[]> {
  const { rows } = await db.query<PayoutNotInBankRow>(
    `select o.id, ${ACCOUNT_TYPE_OF('o')} as account_type, o.account_id, o.currency, o.amount, o.status, o.created_at
       from payouts o
      where o.created_at < $1::timestamptz and o.status not in ('failed', 'canceled')
        and not exists (select 1 from bank_lines b where b.payout_id = o.id)
      order by o.created_at, o.id`,
    [to],
  );
  return rows;
}
