import type { Queryable } from '../db/pool.ts';
import type { DepositCandidate } from './assignDeposits.ts';

// The day a payout is due in the bank, and its window [day - 1, day + BANK_MATCH_DAYS].
const DUE_DAY = `(p.deposits_at at time zone 'UTC')::date`;

/** Imports and matchings take turns: both rewrite which line is matched to which payout. */
export async function lockBankMatching(db: Queryable): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtext('tally:bank-matching'))`);
}

export type CandidateRow = Omit<DepositCandidate, 'refers'> & { text: string };

/**
 * Every (paid payout, credit) pair of the same currency and amount whose value date is in the window, with
 * the line's reference and description as `text`.
 */
export async function listDepositCandidates(db: Queryable, matchDays: number): Promise<CandidateRow[]> {
  const { rows } = await db.query<CandidateRow>(
    `select p.id as "payoutId", l.id as "lineId", l.reference || ' ' || l.description as text,
            abs(l.value_date - ${DUE_DAY}) as distance
       from payouts p
       join bank_lines l on l.currency = upper(p.currency) and l.amount = p.amount and l.amount > 0
        and l.value_date between ${DUE_DAY} - 1 and ${DUE_DAY} + $1::int
      where p.status = 'paid'
        -- Only payouts due within reach of some credit: the payouts index, not every payout ever paid.
        and p.deposits_at >= ((select min(value_date) from bank_lines where amount > 0) - $1::int)::timestamp
                             at time zone 'UTC'
        and p.deposits_at < ((select max(value_date) from bank_lines where amount > 0) + 2)::timestamp
                            at time zone 'UTC'`,
    [matchDays],
  );
  return rows;
}

/** Sets each line's payout to the assignment's: lines no longer matched are cleared first (one to one). */
export async function saveDepositMatches(db: Queryable, matches: Map<number, string>): Promise<void> {
  const pairs = JSON.stringify([...matches].map(([lineId, payoutId]) => ({ lineId, payoutId })));
  await db.query(
    `update bank_lines l set payout_id = null
      where l.payout_id is not null
        and not exists (select from jsonb_to_recordset($1::jsonb) as m("lineId" bigint, "payoutId" text)
                         where m."lineId" = l.id and m."payoutId" = l.payout_id)`,
    [pairs],
  );
  await db.query(
    `update bank_lines l set payout_id = m."payoutId"
       from jsonb_to_recordset($1::jsonb) as m("lineId" bigint, "payoutId" text)
      where l.id = m."lineId" and l.payout_id is distinct from m."payoutId"`,
    [pairs],
  );
}

export type PayoutFacts = {
  id: string;
  accountId: string;
  amount: number;
  currency: string;
  dueDay: string;
  windowFrom: string;
  windowTo: string;
};

const PAYOUT_FACTS = `p.id, p.account_id as "accountId", p.amount, p.currency,
  to_char(${DUE_DAY}, 'YYYY-MM-DD') as "dueDay", to_char(${DUE_DAY} - 1, 'YYYY-MM-DD') as "windowFrom",
  to_char(${DUE_DAY} + $1::int, 'YYYY-MM-DD') as "windowTo"`;

export async function listPayoutFacts(
  db: Queryable,
  ids: string[],
  matchDays: number,
): Promise<PayoutFacts[]> {
  const { rows } = await db.query<PayoutFacts>(
    `select ${PAYOUT_FACTS} from payouts p where p.id = any($2::text[]) order by p.id`,
    [matchDays, ids],
  );
  return rows;
}

/**
 * Paid payouts no credit is matched to, leaving out `excluded` (the ambiguous ones), whose every day of the
 * window lies within a statement imported for the payout's currency.
 */
export async function listPayoutsMissingInBank(
  db: Queryable,
  matchDays: number,
  excluded: string[],
): Promise<PayoutFacts[]> {
  const { rows } = await db.query<PayoutFacts>(
    `select ${PAYOUT_FACTS}
       from payouts p
      where p.status = 'paid' and p.amount > 0
        -- Only payouts whose window can lie within the statements' dates at all (the payouts index).
        and p.deposits_at >= ((select min(covers_from) from bank_statements) + 1)::timestamp at time zone 'UTC'
        and p.deposits_at < ((select max(covers_to) from bank_statements) - $1::int + 1)::timestamp
                            at time zone 'UTC'
        and p.id <> all($2::text[])
        and not exists (select from bank_lines l where l.payout_id = p.id)
        and not exists (
          select from generate_series(${DUE_DAY} - 1, ${DUE_DAY} + $1::int, interval '1 day') as day
           where not exists (
             select from bank_statements s
              where upper(p.currency) = any(s.currencies) and day::date between s.covers_from and s.covers_to))
      order by p.id`,
    [matchDays, excluded],
  );
  return rows;
}

export type BankLineFacts = {
  id: number;
  bankAccount: string;
  valueDate: string;
  amount: number;
  currency: string;
  description: string;
  reference: string;
};

/** Credits from the provider (description contains `pattern`, any case) matched to no payout. */
export async function listUnmatchedProviderCredits(
  db: Queryable,
  pattern: string,
  excluded: number[],
): Promise<BankLineFacts[]> {
  const { rows } = await db.query<BankLineFacts>(
    `select l.id, l.bank_account as "bankAccount", to_char(l.value_date, 'YYYY-MM-DD') as "valueDate", l.amount,
            l.currency, l.description, l.reference
       from bank_lines l
      where l.amount > 0 and l.payout_id is null and strpos(lower(l.description), lower($1)) > 0
        and l.id <> all($2::bigint[])
      order by l.id`,
    [pattern, excluded],
  );
  return rows;
}
