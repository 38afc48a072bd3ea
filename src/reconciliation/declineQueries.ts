import type { Queryable } from '../db/pool.ts';
import type { AdviceScope, RetryAdvice } from '../domain/declines.ts';

// When a payment was attempted: its creation, else the first snapshot of it (a decline happens at creation).
const ATTEMPTED_AT = (alias: string) => `coalesce(${alias}.created_at, ${alias}.updated_at)`;

/** An earlier decline of a payment's card that said not to charge it again. */
export type EarlierDecline = {
  paymentId: string;
  accountId: string;
  advice: RetryAdvice;
  scope: AdviceScope | null;
  declineCode: string | null;
  network: string | null;
  networkErrorCode: string | null;
  networkErrorCategory: string | null;
  attemptedAt: Date;
};

// Advice that forbids charging the card again; the partial indexes of migration 0019 hold exactly these.
const BLOCKING = `other.status = 'failed' and other.retry_advice in ('do_not_retry', 'stop_recurring')`;

// "Same card": the same payment method id, or the same brand, last four and expiry (all three known). The two
// halves are separate joins, each served by its own index; one join on either would scan every payment.
const EARLIER_DECLINES_SQL = `
  with retries as (
    select id, payment_method_id, card_last_four, card_expiry, card_brand, ${ATTEMPTED_AT('payments')} as attempted_at
      from payments where id = any($1::text[]) and card_key is not null
  ), same_card as (
    select r.id as retry_id, r.attempted_at, other.id
      from retries r join payments other on other.payment_method_id = r.payment_method_id
     where ${BLOCKING}
    union
    select r.id, r.attempted_at, other.id
      from retries r
      join payments other on other.card_last_four = r.card_last_four and other.card_expiry = r.card_expiry
                         and lower(other.card_brand) = lower(r.card_brand)
     where ${BLOCKING}
  )
  select s.retry_id as "retryId", other.id as "paymentId", other.account_id as "accountId",
         other.retry_advice as advice, other.advice_scope as scope, other.decline_code as "declineCode",
         other.network, other.network_error_code as "networkErrorCode",
         other.network_error_category as "networkErrorCategory", ${ATTEMPTED_AT('other')} as "attemptedAt"
    from same_card s join payments other on other.id = s.id
   where other.id <> s.retry_id and ${ATTEMPTED_AT('other')} < s.attempted_at
   order by s.retry_id, "attemptedAt" desc, other.id`;

/**
 * Per payment, the earlier failed payments on the same card whose decline advised `do_not_retry` or
 * `stop_recurring`, newest first: one query for all of them.
 */
export async function listEarlierDeclines(
  db: Queryable,
  paymentIds: string[],
): Promise<Map<string, EarlierDecline[]>> {
  const { rows } = await db.query<EarlierDecline & { retryId: string }>(EARLIER_DECLINES_SQL, [paymentIds]);
  const byPayment = new Map<string, EarlierDecline[]>();
  for (const { retryId, ...decline } of rows)
    byPayment.set(retryId, [...(byPayment.get(retryId) ?? []), decline]);
  return byPayment;
}

/** A failed card payment, as `card_declined_repeatedly` counts it. */
export type CardDecline = {
  cardKey: string;
  paymentId: string;
  accountId: string;
  amount: number;
  currency: string | null;
  advice: RetryAdvice;
  declineCode: string | null;
  attemptedAt: Date;
};

/** The cards of these payments (by card key), and every decline of each, oldest first. */
export async function loadCardDeclines(
  db: Queryable,
  paymentIds: string[],
): Promise<{ cardKeyOf: Map<string, string>; declines: CardDecline[] }> {
  const cards = await db.query<{ id: string; cardKey: string }>(
    `select id, card_key as "cardKey" from payments where id = any($1::text[]) and card_key is not null`,
    [paymentIds],
  );
  const cardKeyOf = new Map(cards.rows.map((row) => [row.id, row.cardKey]));
  if (cardKeyOf.size === 0) return { cardKeyOf, declines: [] };
  const { rows } = await db.query<CardDecline>(
    `select card_key as "cardKey", id as "paymentId", account_id as "accountId",
            coalesce(amount, 0) as amount, currency, retry_advice as advice,
            decline_code as "declineCode", ${ATTEMPTED_AT('payments')} as "attemptedAt"
       from payments
      where card_key = any($1::text[]) and status = 'failed' and retry_advice is not null
      order by card_key, "attemptedAt", id`,
    [[...new Set(cardKeyOf.values())]],
  );
  return { cardKeyOf, declines: rows };
}
