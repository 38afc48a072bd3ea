import type { Listing } from './paginate.ts';
import { createResourceStore, type StoredResource } from './resourceStore.ts';

/** A balance transaction as the simulated API lists it. */
export type SimulatedLine = { id: string; payout_id: string | null; [field: string]: unknown };

/** What the bank sees of a paid payout: the deposit a bank statement shows. */
export type PaidPayout = {
  id: string;
  account_id: string;
  amount: number;
  currency: string;
  deposits_at: string;
};

/**
 * The simulated provider's payouts (newest first per account, like payments), the lines of each in the
 * order the API lists them, and which payment each payout credited, so a new payout takes only payments
 * not paid out yet.
 */
export function createPayoutStore() {
  const payouts = createResourceStore();
  const lines = new Map<string, { items: SimulatedLine[]; positions: Map<string, number> }>();
  const paidOutIn = new Map<string, string>();
  const accounts = new Set<string>();
  const lineIds = new Set<string>();

  return {
    payouts,
    /** Every account with a payout. */
    accounts: () => [...accounts].sort(),
    /** Stores a payout state; its lines, when given, replace those stored. */
    put(payout: StoredResource, payoutLines?: SimulatedLine[]) {
      payouts.put(payout);
      accounts.add(payout.account_id);
      for (const line of payoutLines ?? []) lineIds.add(line.id);
      if (payoutLines)
        lines.set(payout.id, {
          items: payoutLines,
          positions: new Map(payoutLines.map((line, index) => [line.id, index])),
        });
    },
    /** A payout's lines as a listing (empty for an unknown payout). */
    linesOf(payoutId: string): Listing<SimulatedLine> {
      const stored = lines.get(payoutId) ?? { items: [], positions: new Map<string, number>() };
      return {
        length: stored.items.length,
        at: (index) => stored.items[index] as SimulatedLine,
        positionOf: (id) => stored.positions.get(id) ?? -1,
      };
    },
    /** Whether a payout has a line of this id. */
    hasLine: (id: string) => lineIds.has(id),
    /** The payout that paid this payment out, if any. */
    payoutOf: (paymentId: string) => paidOutIn.get(paymentId) ?? null,
    markPaidOut(paymentIds: string[], payoutId: string) {
      for (const id of paymentIds) paidOutIn.set(id, payoutId);
    },
    /** A failed or canceled payout hands its payments back: a later payout takes them. */
    releasePaymentsOf(payoutId: string) {
      for (const [paymentId, payout] of paidOutIn) if (payout === payoutId) paidOutIn.delete(paymentId);
    },
    /** The payment most recently paid out, for a payout that credits one twice. */
    lastPaidOutPayment: () => [...paidOutIn.keys()].at(-1) ?? null,
  };
}

export type PayoutStore = ReturnType<typeof createPayoutStore>;

/** Every paid payout of the account (or of all accounts), oldest deposit first: what a bank statement lists. */
export function listPaidPayouts(store: PayoutStore, accountId?: string): PaidPayout[] {
  const paid: PaidPayout[] = [];
  for (const account of accountId === undefined ? store.accounts() : [accountId]) {
    const listing = store.payouts.listing(account);
    for (let index = 0; index < listing.length; index++) {
      const payout = listing.at(index);
      if (payout.status !== 'paid') continue;
      paid.push({
        id: payout.id,
        account_id: payout.account_id,
        amount: payout.amount as number,
        currency: payout.currency as string,
        deposits_at: payout.deposits_at as string,
      });
    }
  }
  return paid.sort((a, b) => a.deposits_at.localeCompare(b.deposits_at) || a.id.localeCompare(b.id));
}
