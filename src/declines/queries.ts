import type { Page, Queryable } from '../db/pool.ts';

export type DeclineFilter = {
  advice?: string | undefined;
  /** Compared case-insensitively. */
  network?: string | undefined;
  accountId?: string | undefined;
  /** Declines attempted at or after this time. */
  since?: Date | undefined;
};

/** A declined card payment with its stored classification (meanings are the domain table's, not stored). */
export type DeclineRow = {
  id: number;
  payment_id: string;
  account_id: string;
  amount: number | null;
  currency: string | null;
  card_brand: string | null;
  card_last_four: string | null;
  payment_method_id: string | null;
  error_code: string | null;
  error_description: string | null;
  decline_code: string | null;
  network: string | null;
  network_error_code: string | null;
  network_error_category: string | null;
  retry_advice: string;
  advice_scope: string | null;
  declined_at: Date;
};

const DECLINE_COLUMNS = `d.row_id as id, p.id as payment_id, p.account_id, p.amount, p.currency, p.card_brand,
       p.card_last_four, p.payment_method_id, p.error_code, p.error_description, p.decline_code, p.network,
       p.network_error_code, p.network_error_category, p.retry_advice, p.advice_scope,
       coalesce(p.created_at, p.updated_at) as declined_at`;

/** Declines newest first (in the order the projection first saw them), filtered, one page plus one row. */
export async function listDeclines(db: Queryable, filter: DeclineFilter, page: Page): Promise<DeclineRow[]> {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<DeclineRow>(
    `select ${DECLINE_COLUMNS}
       from payment_declines d join payments p on p.id = d.payment_id
      where p.status = 'failed' and p.retry_advice is not null
        and ($1::text is null or p.retry_advice = $1::text)
        and ($2::text is null or upper(p.network) = upper($2::text))
        and ($3::text is null or p.account_id = $3::text)
        and ($4::timestamptz is null or coalesce(p.created_at, p.updated_at) >= $4::timestamptz)
        and ($5::bigint is null or d.row_id < $5::bigint) and ($6::bigint is null or d.row_id > $6::bigint)
      order by d.row_id ${backwards ? 'asc' : 'desc'}
      limit $7::int`,
    [
      filter.advice ?? null,
      filter.network ?? null,
      filter.accountId ?? null,
      filter.since ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
    ],
  );
  return rows;
}

/** The decline of one payment, or null when it is not a declined card payment. */
export async function findDeclineOfPayment(db: Queryable, paymentId: string): Promise<DeclineRow | null> {
  const { rows } = await db.query<DeclineRow>(
    `select ${DECLINE_COLUMNS}
       from payment_declines d join payments p on p.id = d.payment_id
      where p.id = $1::text and p.status = 'failed' and p.retry_advice is not null`,
    [paymentId],
  );
  return rows[0] ?? null;
}
