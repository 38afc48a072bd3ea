import type { MovementKind } from '../domain/movementKinds.ts';
import { SETTLED_PAYMENT_STATUSES, sqlStatuses } from '../domain/paymentStatuses.ts';

/** A sum of one kind of movement on one business day, per account and currency; payouts one by one. */
export type MovementRow = {
  account_type: string;
  account_id: string;
  currency: string;
  /** The business day; with month granularity, the first day of its month. */
  day: string;
  kind: MovementKind;
  /** The payout id for payout, reversal, bank and unexplained movements; null for daily sums. */
  reference: string | null;
  amount: number;
};

// The rules of when an item counts (docs/month-end.md, "When each item counts"), as SQL fragments over a
// payment `p`, shared by the movements, the open items and the tie-out.

// Payments that moved money, and ACH payments that did before they were returned.
export const SUCCEEDED_PAYMENT = `(p.status in ${sqlStatuses(SETTLED_PAYMENT_STATUSES)}
  or (p.status = 'failed' and (p.succeeded_at is not null or p.returned is true)))`;

// When a payment succeeded: its creation when captured at creation, else the first snapshot showing success.
export const MANUAL_CAPTURE = `p.capture_strategy = 'manual'`;
export const MANUAL_SUCCEEDED_AT = `coalesce(p.succeeded_at, p.captured_at, p.created_at)`;

// A manual capture succeeds within its 7-day authorization: the creation window to scan is that much wider.
export const CAPTURE_WINDOW = `interval '8 days'`;

// Items older than the payout sync's first listing of their account count only once a synced payout contains
// them: the provider paid out the older ones in payouts Tally never listed, so counting them would leave them
// held for ever. An account the sync does not list (or has not listed yet) counts everything. An item no
// older than every account's listing start is decided without looking further (one comparison per row).
export const COUNTED = (accountId: string, at: string, contained: string) =>
  `(${at} >= (select coalesce(max(listed_from), '-infinity') from payout_sync_accounts)
    or not exists (select 1 from payout_sync_accounts s
                    where s.account_id = ${accountId} and ${at} < s.listed_from
                      and not exists (select 1 from payout_lines l where ${contained})))`;

// A payout says no test or live: its account's mode as the provider stated it does, in the account_type of its
// payments, disputes or forwarding requests (deliveries, or an API answer's is_test), looked up once per account
// (ACCOUNT_MODES, a CTE the query joins), else of the payout's own delivery. The payout sync's snapshots (ids
// `api_…`) are left out: they carry a mode the sync assumed. Nothing stated: `unknown`, never guessed
// (docs/month-end.md, "Test money"), so the journal leaves it out and the report lists it.
export const ACCOUNT_MODES = `account_modes as materialized (
  select a.account_id,
         coalesce((select account_type from payments where account_id = a.account_id limit 1),
                  (select account_type from disputes where account_id = a.account_id limit 1),
                  (select account_type from forwarding_requests where account_id = a.account_id limit 1))
           as account_type
    from (select distinct account_id from payouts) a)`;
/** The mode of `payout`, given its account's row of ACCOUNT_MODES as `mode`. */
export const ACCOUNT_TYPE_OF = (payout: string, mode: string) =>
  `coalesce(${mode}.account_type,
            (select e.account_type from events e
              where e.id = ${payout}.event_row_id and e.event_id not like 'api\\_%'),
            'unknown')`;

// The refunds without an account key yet, with their payment's, found through the partial index of keyless
// refunds (decision 0018). A refund whose payment Tally does not have belongs to no account.
const KEYLESS_REFUNDS_BRANCH = `select r.id, r.payment_id, r.amount, r.status, r.created_at, r.updated_at, p.account_type,
          p.account_id, p.currency
     from refunds r join payments p on p.id = r.payment_id where r.account_id is null`;
export const KEYLESS_REFUNDS = `(${KEYLESS_REFUNDS_BRANCH})`;

// Refunds with their account key: the one each carries (copyRefundAccountKeys), or their payment's for the few
// that have none yet (KEYLESS_REFUNDS). Conditions on it reach both branches.
export const REFUNDS_WITH_KEY = `(select r.id, r.payment_id, r.amount, r.status, r.created_at, r.updated_at,
          r.account_type, r.account_id, r.currency
     from refunds r where r.account_id is not null
   union all
   ${KEYLESS_REFUNDS_BRANCH})`;

export const FEE_KIND = (type: string) =>
  `case when ${type} = 'processing_fee' then 'processing' when ${type} = 'platform_fee' then 'platform' else 'other' end`;
