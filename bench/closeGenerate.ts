// A month of activity for bench:close, generated in Postgres with generate_series (one statement a table):
// payments spread evenly over the month with their fees, a fifth of them refunded with a returned fee, one in
// 2,000 an ACH return, one in 1,000 disputed (half of those won), daily payouts per live account and currency
// for the month's first 24 days, one line per payment with its fee inline and a check of each line (one in
// 100,000 a mismatch, with its finding), bank credits for most of those payouts, a few failed payouts, and the
// provider's ledger of the synced accounts that the close ties out against.
import type pg from 'pg';

/** The month's first instant and its length in seconds, as `periodBounds` gives them. */
export type Month = { period: string; from: Date; to: Date; timeZone: string };

const SECOND = `interval '1 second'`;

export async function generateMonth(db: pg.ClientBase, payments: number, month: Month): Promise<void> {
  const span = (month.to.getTime() - month.from.getTime()) / 1000;
  // Payment g is created at from + (g - 1) × span / payments: evenly over the month, the last before its end.
  const at = `$2::timestamptz + ((g - 1)::float8 * $3::float8 / $1::int) * ${SECOND}`;
  await db.query(
    `insert into payments (id, account_id, account_type, amount, currency, status, status_terminal, status_updated_at,
                           status_event_row_id, capture_strategy, method_kind, card_brand, fee_amount,
                           application_fee_amount, created_at, updated_at, event_row_id, succeeded_at, failed_at,
                           returned, fees_updated_at, fees_event_row_id, fees_total, fees_processing, fees_platform,
                           fees_other, fees_configured, fees_explicit, snapshot)
     select 'py_' || g, 'acc_' || (g % 200), case when g % 10 = 0 then 'test' else 'live' end, 1000 + g % 9000,
            case when g % 3 = 0 then 'cad' else 'usd' end, case when ach_return then 'failed' else 'succeeded' end,
            true, ts, g, 'automatic', case when ach_return then 'ach' else 'card' end,
            case when ach_return then null else 'visa' end, 60, case when g % 50 = 0 then 25 end, ts, ts, g, ts,
            case when ach_return then ts + interval '3 days' end, case when ach_return then true end,
            ts, g, 60, 50, 10, 0, 50, 10, '{}'::jsonb
       from generate_series(1, $1::int) g,
            lateral (select ${at} as ts, g % 2000 = 7 as ach_return) t`,
    [payments, month.from, span],
  );
  await db.query(
    `insert into payment_fees (id, payment_id, type, amount, remaining_amount, currency, source_configuration_id,
                               source_fee_type, snapshot_updated_at)
     select 'pyfee_' || g || '_' || k, 'py_' || g, case k when 1 then 'processing_fee' else 'platform_fee' end,
            case k when 1 then 50 else 10 end,
            -- An ACH return hands the processing fee back.
            case when k = 1 and g % 2000 = 7 then 0 when k = 1 then 50 else 10 end,
            case when g % 3 = 0 then 'cad' else 'usd' end, case k when 1 then 'sfc_1' end,
            case k when 1 then 'processing_ecomm' end, now()
       from generate_series(1, $1::int) g, generate_series(1, 2) k`,
    [payments],
  );
  await db.query(
    // With its payment's account key, as the projection writes it.
    `insert into refunds (id, payment_id, amount, status, created_at, updated_at, event_row_id, snapshot,
                          account_type, account_id, currency)
     select 're_' || g, p.id, 300, 'succeeded', ts + interval '1 hour', ts + interval '1 hour', g,
            '{}'::jsonb, p.account_type, p.account_id, p.currency
       from generate_series(1, $1::int / 5) g
      cross join lateral (select ${at.replaceAll('g - 1', 'g * 5 - 1')} as ts) t
       join payments p on p.id = 'py_' || (g * 5)
      where ts + interval '1 hour' < $2::timestamptz + $3::float8 * ${SECOND}`,
    [payments, month.from, span],
  );
  await db.query(
    `insert into returned_fees (id, refund_id, payment_fee_id, type, returned_amount, original_amount,
                                remaining_amount, currency)
     select 'rtfee_' || r.id, r.id, 'pyfee_' || substr(r.payment_id, 4) || '_1', 'processing_fee', 12, 50, 38,
            p.currency
       from refunds r join payments p on p.id = r.payment_id`,
  );
  await db.query(
    `insert into disputes (id, payment_id, account_id, account_type, amount, currency, reason, status,
                           status_updated_at, created_at, updated_at, event_row_id, snapshot)
     select 'dp_' || p.id, p.id, p.account_id, p.account_type, p.amount, p.currency, 'fraudulent',
            case when n % 2 = 0 then 'won' else 'needs_response' end,
            p.created_at + interval '3 days', p.created_at + interval '1 day', p.created_at + interval '3 days',
            n, '{}'::jsonb
       from generate_series(1, $1::int / 1000) n join payments p on p.id = 'py_' || (n * 1000 - 3)`,
    [payments],
  );
  await generatePayouts(db, month);
}

/** Payouts of live accounts for the month's first 24 days, their lines and checks, bank credits, sync state. */
async function generatePayouts(db: pg.ClientBase, month: Month): Promise<void> {
  const day = `(p.created_at at time zone $1::text)::date`;
  await db.query(
    `insert into payouts (id, account_id, amount, currency, status, payout_type, created_at, updated_at,
                          event_row_id, line_count, lines_complete, projected_at, deposits_at)
     select 'po_' || account_id || '_' || currency || '_' || to_char(day, 'MMDD'), account_id, sum(net), currency,
            case when row_number() over (order by account_id, currency, day) % 97 = 0 then 'failed' else 'paid' end,
            'cc', created, created + interval '2 days', 1, count(*) + 1, true, now(), created + interval '1 day'
       from (select p.account_id, p.currency, ${day} as day, p.amount - p.fees_total as net,
                    (${day} + 1 + time '12:00') at time zone $1::text as created
               from payments p
              where p.account_type = 'live' and p.status = 'succeeded' and p.created_at < $2::timestamptz) p
      group by account_id, currency, day, created`,
    [month.timeZone, new Date(month.from.getTime() + 24 * 86400_000)],
  );
  await db.query(
    `insert into payout_lines (id, payout_id, account_id, txn_type, kind, amount, fee, net, currency,
                               source_id, source_type, source_payment_id, event_row_id, projected_at)
     select 'bt_' || p.id, 'po_' || p.account_id || '_' || p.currency || '_' || to_char(${day}, 'MMDD'),
            p.account_id, 'seller_payment', 'payment', p.amount, p.fees_total, p.amount - p.fees_total,
            p.currency, p.id, 'payment', p.id, 1, now()
       from payments p
      where p.account_type = 'live' and p.status = 'succeeded' and p.created_at < $2::timestamptz
     union all
     select 'bt_' || o.id, o.id, o.account_id, 'payout', 'payout', -o.amount, 0, -o.amount, o.currency,
            o.id, 'payout', null, 1, now()
       from payouts o`,
    [month.timeZone, new Date(month.from.getTime() + 24 * 86400_000)],
  );
  // One line in 100,000 is checked as a mismatch: Tally expected 1.00 less, which `unexplained` shows.
  await db.query(
    `insert into payout_line_checks (line_id, payout_id, matched_type, matched_id, status, expected, actual, checked_at)
     select l.id, l.payout_id, 'payment', l.source_payment_id, case when mismatch then 'mismatch' else 'ok' end,
            l.net - case when mismatch then 100 else 0 end, l.net, now()
       from payout_lines l, lateral (select substr(l.id, 7)::int % 100000 = 11 as mismatch) m
      where l.kind = 'payment'`,
  );
  // Each payout judged as reconcile-payouts leaves it: its counts and Tally's value of its lines.
  await db.query(
    `insert into payout_reconciliations (payout_id, account_id, judged_at, lines_checked, lines_mismatched,
                                         lines_value, lines_value_judged_at)
     select o.id, o.account_id, o.projected_at, count(*), count(*) filter (where c.status = 'mismatch'),
            sum(c.expected), o.projected_at
       from payouts o join payout_lines l on l.payout_id = o.id and l.kind <> 'payout'
       join payout_line_checks c on c.line_id = l.id
      group by o.id`,
  );
  await db.query(
    `insert into findings (code, severity, status, subject_type, subject_id, account_id, currency, expected, actual,
                           at_stake, scope, first_seen_at, last_seen_at)
     select 'payout_line_mismatch', 'error', 'open', 'balance_transaction', c.line_id, o.account_id, o.currency,
            to_jsonb(c.expected), to_jsonb(c.actual), abs(c.actual - c.expected), 'payout:' || o.id,
            o.created_at, o.created_at
       from payout_line_checks c join payouts o on o.id = c.payout_id
      where c.status = 'mismatch'`,
  );
  const statement = await db.query<{ id: number }>(
    `insert into bank_statements (format, bank_account, file_sha256, covers_from, covers_to, currencies, lines,
                                  credits, duplicates, imported_by, imported_at)
     values ('csv', 'ba_bench', '\\x00', $1::date, $1::date + 30, '{usd,cad}', 0, 0, 0, 'bench', now())
     returning id`,
    [month.from.toISOString().slice(0, 10)],
  );
  // Payouts created by the 22nd are in the bank the day after; later ones are still in transit.
  await db.query(
    `insert into bank_lines (statement_id, bank_account, value_date, amount, currency, description, reference, rank,
                             payout_id)
     select $1::bigint, 'ba_bench', (o.created_at at time zone $2::text)::date + 1, o.amount, o.currency,
            'PAYOUT', o.id, 1, o.id
       from payouts o
      where o.status = 'paid' and o.created_at < $3::timestamptz`,
    [statement.rows[0]?.id, month.timeZone, new Date(month.from.getTime() + 22 * 86400_000)],
  );
  await db.query(
    `insert into payout_sync_accounts (account_id, synced_at, newest_payout_created_at, listed_from)
     select account_id, now(), max(created_at), $1::timestamptz - interval '35 days' from payouts group by account_id`,
    [month.from],
  );
  await generateLedger(db);
}

/**
 * The provider's ledger of each synced account, as the payout sync lists it: a line per payment (in its payout,
 * or in none yet), per refund and the fee it returned, and per payout; then each account's listing.
 */
async function generateLedger(db: pg.ClientBase): Promise<void> {
  await db.query(
    `insert into provider_ledger_lines (account_id, id, payout_id, txn_type, kind, net, currency, source_id, source_type,
                                        source_payment_id, created_at, listed_at)
     select p.account_id, 'bt_' || p.id, o.id, 'seller_payment', 'payment', p.amount - p.fees_total,
            p.currency, p.id, 'payment', p.id, p.created_at, now()
       from payments p join payout_sync_accounts s on s.account_id = p.account_id
       -- A failed payout hands its payments back: their lines are in no payout again.
       left join payout_lines l on l.id = 'bt_' || p.id
       left join payouts o on o.id = l.payout_id and o.status <> 'failed'
      where p.status = 'succeeded'
     union all
     select p.account_id, 'bt_' || r.id, null, 'seller_payment_refund', 'refund', -r.amount + 12, p.currency, r.id,
            'refund', p.id, r.created_at, now()
       from refunds r join payments p on p.id = r.payment_id join payout_sync_accounts s on s.account_id = p.account_id
     union all
     select o.account_id, 'bt_' || o.id, o.id, 'payout', 'payout', -o.amount, o.currency, o.id, 'payout', null,
            o.created_at, now()
       from payouts o`,
  );
  await db.query(
    `insert into provider_ledger_listings (account_id, listed_at, full_listed_at, lines)
     select account_id, now(), now(), count(*) from provider_ledger_lines group by account_id`,
  );
}
