import { z } from 'zod';
import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import type { EventToProject } from '../event.ts';
import type { PayoutLineCountRow, PayoutLineRow, PayoutRow } from './payoutQueries.ts';
import { balanceTransactionSchema, payoutSchema } from './payoutSnapshot.ts';

type LineKind = PayoutLineRow['kind'];

/** What each documented `txn_type` does to the merchant's balance. */
const KIND_BY_TXN_TYPE = new Map<string, LineKind>([
  ['seller_payment', 'payment'],
  ['seller_payment_refund', 'refund'],
  ['refund', 'refund'],
  ['processing_fee', 'fee'],
  ['platform_fee', 'fee'],
  ['processing_fee_return', 'fee_return'],
  ['platform_fee_return', 'fee_return'],
  ['payout', 'payout'],
]);

// Documented as families rather than listed one by one: disputes, the platform's credits, partner fees.
const OTHER_TXN_TYPE_PATTERNS = [/^dispute(_|$)/, /_credit$/, /^partner_platform_/];

/** Whether the provider's docs name this `txn_type`; any other is kept as `other` and counted. */
export const isKnownTxnType = (txnType: string) =>
  KIND_BY_TXN_TYPE.has(txnType) || OTHER_TXN_TYPE_PATTERNS.some((pattern) => pattern.test(txnType));

export const lineKindOf = (txnType: string): LineKind => KIND_BY_TXN_TYPE.get(txnType) ?? 'other';

// +1 a credit to the balance, -1 a debit; null: the sign is taken as given.
const DIRECTION: Record<LineKind, 1 | -1 | null> = {
  payment: 1,
  fee_return: 1,
  refund: -1,
  fee: -1,
  payout: -1,
  other: null,
};

/**
 * A line's amounts in the table's convention (credit positive, debit negative, `fee` a magnitude, net =
 * amount - fee), whichever convention the provider used: a debit sent as a positive amount was written in
 * the all-positive convention, so its amount and net are turned round together. An `other` line keeps its
 * sign, as nothing says which way it goes.
 */
export function normalizedAmounts(
  kind: LineKind,
  sent: { amount: number; fee?: number | null; net?: number | null },
): { amount: number; fee: number; net: number } {
  const direction = DIRECTION[kind];
  const turn = direction !== null && sent.amount !== 0 && Math.sign(sent.amount) !== direction ? -1 : 1;
  // `0 * -1` is -0, which JSON writes as 0 anyway; `|| 0` keeps comparisons plain.
  const amount = turn * sent.amount || 0;
  const fee = Math.abs(sent.fee ?? 0);
  const net = sent.net === null || sent.net === undefined ? amount - fee : turn * sent.net || 0;
  return { amount, fee, net };
}

/** The row of a payout snapshot (an API snapshot, or the `data` of a `payout.*` delivery). */
export function payoutRowOf(event: EventToProject, data: unknown): PayoutRow {
  const payout = payoutSchema.parse(data);
  return {
    id: payout.id,
    account_id: payout.account_id ?? event.accountId,
    amount: payout.amount,
    currency: payout.currency.toLowerCase(),
    status: payout.status,
    payout_type: payout.payout_type ?? null,
    delivery_method: payout.delivery_method ?? null,
    description: payout.description ?? null,
    deposits_at: payout.deposits_at ?? null,
    payments_count: payout.payments_count ?? null,
    payments_total: payout.payments_total ?? null,
    refunds_count: payout.refunds_count ?? null,
    refunds_total: payout.refunds_total ?? null,
    fees_total: payout.fees_total ?? null,
    other_total: payout.other_total ?? null,
    bank_account: redactCardNumbers(payout.bank_account ?? null),
    metadata: redactCardNumbers(payout.metadata ?? null),
    created_at: payout.created_at ?? null,
    updated_at: payout.updated_at ?? payout.created_at ?? event.receivedAt,
    event_row_id: event.rowId,
    snapshot: redactCardNumbers(data),
    projected_at: event.receivedAt,
  } satisfies PayoutRow;
}

/** The row of a balance transaction snapshot, its amounts normalized (see `normalizedAmounts`). */
export function payoutLineRowOf(event: EventToProject, data: unknown): PayoutLineRow {
  const line = balanceTransactionSchema.parse(data);
  const kind = lineKindOf(line.txn_type);
  return {
    id: line.id,
    payout_id: line.payout_id,
    account_id: line.account_id ?? event.accountId,
    txn_type: line.txn_type,
    kind,
    ...normalizedAmounts(kind, line),
    currency: line.currency.toLowerCase(),
    source_id: line.source_id ?? null,
    source_type: line.source_type ?? null,
    source_payment_id: line.source_payment_id ?? null,
    financial_transaction_id: line.financial_transaction_id ?? null,
    description: line.description ?? null,
    available_on: line.available_on ?? null,
    created_at: line.created_at ?? null,
    updated_at: line.updated_at ?? line.created_at ?? event.receivedAt,
    event_row_id: event.rowId,
    snapshot: redactCardNumbers(data),
    projected_at: event.receivedAt,
  } satisfies PayoutLineRow;
}

/**
 * Tally's own snapshot, stored by the payout sync once every page of a payout's lines is in the raw log:
 * how many lines the payout has.
 */
export const payoutLineCountSchema = z.object({
  payout_id: z.string().min(1),
  line_count: z.number().int().nonnegative(),
});

export function payoutLineCountRowOf(event: EventToProject, data: unknown): PayoutLineCountRow {
  const marker = payoutLineCountSchema.parse(data);
  return { payout_id: marker.payout_id, line_count: marker.line_count, event_row_id: event.rowId };
}
