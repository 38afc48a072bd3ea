import type { SimulatedLine } from './payoutStore.ts';
import type { StoredResource } from './resourceStore.ts';
import { newId } from './scriptedPayment.ts';

/** A line before its sign convention: the balance's view, credit positive, `fee` a magnitude. */
export type Entry = {
  txnType: string;
  amount: number;
  fee?: number;
  source: [string, string];
  paymentId: string | null;
};

type Fee = { id: string; type: string; amount: number };
type Refund = {
  id: string;
  amount: number;
  status?: string;
  returned_fees?: { type?: string; returned_amount?: number }[];
};

/** A payment's lines from the balance's view (credit positive): itself, its fees, its refunds and fee returns. */
export function entriesOf(payment: StoredResource, layout: 'lines' | 'inline'): Entry[] {
  const fees = (payment.fees as Fee[] | undefined) ?? [];
  const inlineFee = layout === 'inline' ? fees.reduce((sum, fee) => sum + fee.amount, 0) : 0;
  const source = (id: string, type: string): [string, string] => [id, type];
  const entries: Entry[] = [
    {
      txnType: 'seller_payment',
      amount: payment.amount as number,
      fee: inlineFee,
      source: source(payment.id, 'payment'),
      paymentId: payment.id,
    },
  ];
  if (layout === 'lines')
    for (const fee of fees)
      entries.push({
        txnType: fee.type,
        amount: -fee.amount,
        source: source(fee.id, 'payment_fee'),
        paymentId: payment.id,
      });
  for (const refund of (payment.refunds as Refund[] | undefined) ?? []) {
    if (refund.status && refund.status !== 'succeeded') continue;
    entries.push({
      txnType: 'seller_payment_refund',
      amount: -refund.amount,
      source: source(refund.id, 'refund'),
      paymentId: payment.id,
    });
    for (const returned of refund.returned_fees ?? [])
      entries.push({
        txnType: `${returned.type ?? 'processing_fee'}_return`,
        amount: returned.returned_amount ?? 0,
        source: source(refund.id, 'refund'),
        paymentId: payment.id,
      });
  }
  return entries;
}

export const netOf = (entry: Entry) => entry.amount - (entry.fee ?? 0);

/** The payout's stated totals, as positive magnitudes (docs/payouts.md, payout_total_mismatch). */
export function totalsOf(entries: Entry[]) {
  const of = (types: string[]) => entries.filter((entry) => types.includes(entry.txnType));
  const sum = (list: Entry[], amount: (entry: Entry) => number) =>
    list.reduce((total, entry) => total + amount(entry), 0);
  const payments = of(['seller_payment']);
  const refunds = of(['seller_payment_refund']);
  const fees = entries.filter((entry) => entry.txnType.endsWith('_fee'));
  const returns = entries.filter((entry) => entry.txnType.endsWith('_fee_return'));
  return {
    payments_count: payments.length,
    payments_total: sum(payments, (entry) => entry.amount),
    refunds_count: refunds.length,
    refunds_total: -sum(refunds, (entry) => entry.amount),
    fees_total:
      -sum(fees, (entry) => entry.amount) +
      sum(payments, (entry) => entry.fee ?? 0) -
      sum(returns, (entry) => entry.amount),
    other_total: 0,
  };
}

/** A balance transaction in the script's sign convention. */
export function lineOf(
  entry: Entry,
  context: {
    script: { account_id: string; currency: string; sign_convention: 'negative' | 'positive' };
    payoutId: string;
    createdAt: string;
  },
): SimulatedLine {
  const signed = (cents: number) => (context.script.sign_convention === 'positive' ? Math.abs(cents) : cents);
  const fee = entry.fee ?? 0;
  return {
    id: newId('bt'),
    account_id: context.script.account_id,
    payout_id: context.payoutId,
    amount: signed(entry.amount),
    fee,
    net: signed(entry.amount - fee),
    currency: context.script.currency,
    available_on: context.createdAt,
    source_id: entry.source[0],
    source_type: entry.source[1],
    source_payment_id: entry.paymentId,
    txn_type: entry.txnType,
    financial_transaction_id: newId('ft'),
    description: null,
    created_at: context.createdAt,
    updated_at: context.createdAt,
  };
}
