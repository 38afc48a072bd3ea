import { type Entry, entriesOf, lineOf } from './payoutLines.ts';
import type { PayoutStore, SimulatedLine } from './payoutStore.ts';
import type { ResourceStore } from './resourceStore.ts';

// Payments the provider settles: succeeded, whether or not refunded since.
export const SETTLED = new Set(['succeeded', 'partially_refunded', 'fully_refunded', 'refunded']);

/** The id a payment's line keeps in the ledger, before and after a payout takes it. */
export const ledgerLineId = (entry: Entry) => `bt_${entry.source[0]}_${entry.txnType}`;

/**
 * An account's whole ledger as GET /v1/balance_transactions without payout_id lists it, newest first: every
 * line of its payouts, and the lines of its settled payments no payout has taken yet (no payout_id, dated
 * when the payment was created), created after `createdAfter` when given. A payment a failed payout handed
 * back is listed as not in a payout again.
 */
export function ledgerOf(
  stores: { payments: ResourceStore; payouts: PayoutStore },
  accountId: string,
  createdAfter: Date | undefined,
): SimulatedLine[] {
  const lines = new Map<string, SimulatedLine>();
  const payouts = stores.payouts.payouts.listing(accountId);
  for (let index = 0; index < payouts.length; index++) {
    const listed = stores.payouts.linesOf(payouts.at(index).id);
    for (let at = 0; at < listed.length; at++) lines.set(listed.at(at).id, listed.at(at));
  }
  const payments = stores.payments.listing(accountId);
  for (let index = 0; index < payments.length; index++) {
    const payment = payments.at(index);
    if (!SETTLED.has(payment.status as string) || stores.payouts.payoutOf(payment.id) !== null) continue;
    const script = {
      account_id: accountId,
      currency: payment.currency as string,
      sign_convention: 'negative' as const,
    };
    for (const entry of entriesOf(payment, 'lines')) {
      const line = lineOf(entry, { script, payoutId: '', createdAt: payment.created_at as string });
      lines.set(ledgerLineId(entry), { ...line, id: ledgerLineId(entry), payout_id: null });
    }
  }
  return [...lines.values()]
    .filter((line) => !createdAfter || Date.parse(line.created_at as string) > createdAfter.getTime())
    .sort(
      (a, b) =>
        Date.parse(b.created_at as string) - Date.parse(a.created_at as string) || b.id.localeCompare(a.id),
    );
}
