import type { Queryable } from '../db/pool.ts';
import { ACCOUNT_MODES, ACCOUNT_TYPE_OF } from './movementRules.ts';

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
 * Findings not resolved whose subject falls in the period ($1, from $2 to $3): a payment or payout by its
 * creation, a payout line by its payout's, a period by its name, anything else by when it was first seen.
 */
const FINDINGS_OF_PERIOD = `select f.id, f.code, f.severity, f.status, f.account_id, f.currency, f.at_stake, f.subject_type,
         f.subject_id
    from findings f
    left join payments p on f.subject_type = 'payment' and p.id = f.subject_id
    left join payouts o on f.subject_type = 'payout' and o.id = f.subject_id
    left join payout_lines l on f.subject_type = 'balance_transaction' and l.id = f.subject_id
    left join payouts lo on lo.id = l.payout_id
   where f.status <> 'resolved'
     and (f.subject_type <> 'period' or f.subject_id like $1::text || ':%')
     and (f.subject_type = 'period'
          or coalesce(p.created_at, o.created_at, lo.created_at, f.first_seen_at) >= $2::timestamptz
             and coalesce(p.created_at, o.created_at, lo.created_at, f.first_seen_at) < $3::timestamptz)`;

/**
 * The period's findings (FINDINGS_OF_PERIOD) grouped by code, status (accepted apart, with their notes), account
 * and currency, with the first ids of each group.
 */
export async function listPeriodFindings(
  db: Queryable,
  period: string,
  from: Date,
  to: Date,
): Promise<OpenFindingRow[]> {
  const { rows } = await db.query<OpenFindingRow>(
    `with current as (${FINDINGS_OF_PERIOD})
     select code, bucket as status, account_id, currency,
            count(*)::int as findings, coalesce(sum(at_stake), 0)::bigint as at_stake,
            (array_agg('fnd_' || id order by id))[1:20] as ids,
            case when bucket = 'accepted' then jsonb_agg(jsonb_build_object('id', 'fnd_' || id, 'note',
              (select h.note from finding_history h where h.finding_id = c.id and h.action = 'accept'
                order by h.id desc limit 1)) order by id) end as accepted
       from (select *, case when status = 'accepted' then 'accepted' else 'open' end as bucket from current) c
      group by 1, 2, 3, 4
      order by 2 desc, 1, 3, 4`,
    [period, from, to],
  );
  return rows;
}

export type BlockingFindingRow = { id: string; code: string; severity: string; subject_id: string };

/** The period's findings of these severities that are open or acknowledged (not accepted), by id. */
export async function listBlockingFindings(
  db: Queryable,
  period: string,
  bounds: { from: Date; to: Date },
  severities: readonly string[],
): Promise<BlockingFindingRow[]> {
  const { rows } = await db.query<BlockingFindingRow>(
    `select 'fnd_' || id as id, code, severity, subject_id from (${FINDINGS_OF_PERIOD}) c
      where status in ('open', 'acknowledged') and severity = any($4::text[])
      order by c.id`,
    [period, bounds.from, bounds.to, severities],
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

/**
 * Payouts created before the period's end and in transit at it, as at the end: not failed or canceled by then,
 * and no bank statement credit dated before the end's business day confirms them (one credited on 2 November
 * is still not in the bank in October's report).
 */
export async function listPayoutsNotInBank(
  db: Queryable,
  to: Date,
  timeZone: string,
): Promise<PayoutNotInBankRow[]> {
  const { rows } = await db.query<PayoutNotInBankRow>(
    `with ${ACCOUNT_MODES}
     select o.id, ${ACCOUNT_TYPE_OF('o', 'm')} as account_type, o.account_id, o.currency, o.amount, o.status,
            o.created_at
       from payouts o left join account_modes m on m.account_id = o.account_id
      where o.created_at < $1::timestamptz
        and not (o.status in ('failed', 'canceled') and o.updated_at < $1::timestamptz)
        and not exists (select 1 from bank_lines b
                         where b.payout_id = o.id and b.value_date < ($1::timestamptz at time zone $2::text)::date)
      order by o.created_at, o.id`,
    [to, timeZone],
  );
  return rows;
}
