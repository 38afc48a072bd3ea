import { z } from 'zod';
import { describeIssues } from '../src/zodIssues.ts';
import { SimulatorError } from './feeConfigurationStore.ts';
import { ledgerLineId, SETTLED } from './ledger.ts';
import { type Entry, entriesOf, lineOf, netOf, totalsOf } from './payoutLines.ts';
import type { PayoutStore } from './payoutStore.ts';
import type { ResourceStore, StoredResource } from './resourceStore.ts';
import { newId } from './scriptedPayment.ts';
import { sendWebhook } from './webhook.ts';

export const payoutScriptSchema = z.object({
  id: z
    .string()
    .regex(/^po_[A-Za-z0-9_]+$/, 'must be po_ followed by letters, digits or _')
    .optional(),
  account_id: z.string().min(1),
  webhook_url: z.url().optional(),
  secret: z.string().min(1).optional(),
  currency: z.enum(['usd', 'cad']).default('usd'),
  payout_type: z.enum(['cc', 'ach']).default('cc'),
  /** `negative`: debits are negative amounts; `positive`: every amount positive, `txn_type` gives the way. */
  sign_convention: z.enum(['negative', 'positive']).default('negative'),
  /** `lines`: each fee its own line; `inline`: the fees are the `fee` of the payment's line. */
  fee_layout: z.enum(['lines', 'inline']).default('lines'),
  status: z.enum(['scheduled', 'in_transit', 'paid', 'failed', 'canceled']).default('paid'),
  deposits_at: z.iso.datetime({ offset: true }).optional(),
  /** Cents added to the payout's first fee (its own line, or the inline fee). */
  wrong_fee_line: z
    .number()
    .int()
    .refine((cents) => cents !== 0, 'must not be 0')
    .optional(),
  /** A line crediting a payment the simulator does not know. */
  unknown_payment_line: z.boolean().default(false),
  /** Credits again the payment most recently paid out in an earlier payout. */
  pay_payment_twice: z.boolean().default(false),
});

type PayoutScript = z.infer<typeof payoutScriptSchema>;

/** The event a payout's move to a status sends. */
export const EVENT_OF_STATUS: Record<string, string> = {
  paid: 'payout.paid',
  failed: 'payout.failed',
  canceled: 'payout.canceled',
};

const payoutTypeOf = (payment: StoredResource) =>
  payment.payment_mode === 'ach' ||
  (payment.payment_method as { bank_account?: unknown } | undefined)?.bank_account
    ? 'ach'
    : 'cc';

/** The payments of the script's account, currency and payout type that no payout paid out yet. */
function paymentsToPayOut(script: PayoutScript, payments: ResourceStore, store: PayoutStore) {
  const listing = payments.listing(script.account_id);
  const found: StoredResource[] = [];
  for (let index = listing.length - 1; index >= 0; index--) {
    const payment = listing.at(index);
    if (
      SETTLED.has(payment.status as string) &&
      payment.currency === script.currency &&
      payoutTypeOf(payment) === script.payout_type &&
      store.payoutOf(payment.id) === null
    )
      found.push(payment);
  }
  return found;
}

function withFaults(script: PayoutScript, entries: Entry[], payments: ResourceStore, store: PayoutStore) {
  if (script.pay_payment_twice) {
    const paidId = store.lastPaidOutPayment();
    const paid = paidId ? payments.get(paidId) : null;
    if (!paid)
      throw new SimulatorError(422, 'invalid_parameter', 'pay_payment_twice: no payment was paid out yet');
    entries.push(...entriesOf(paid, script.fee_layout).slice(0, 1));
  }
  if (script.unknown_payment_line) {
    const id = newId('py_unknown');
    entries.push({ txnType: 'seller_payment', amount: 1500, fee: 0, source: [id, 'payment'], paymentId: id });
  }
  if (script.wrong_fee_line !== undefined) {
    const off = script.wrong_fee_line;
    const fee = entries.find((entry) => entry.txnType.endsWith('_fee') || (entry.fee ?? 0) > 0);
    if (!fee) throw new SimulatorError(422, 'invalid_parameter', 'wrong_fee_line: the payout has no fee');
    if (fee.txnType.endsWith('_fee')) fee.amount -= off;
    else fee.fee = (fee.fee ?? 0) + off;
  }
  return entries;
}

/**
 * Builds a payout of the account's settled payments not paid out yet (and the faults asked for), stores it
 * with its lines, and sends `payout.created` then the final status's event to `webhook_url` if given.
 */
export async function sendScriptedPayout(
  stores: { payments: ResourceStore; payouts: PayoutStore },
  body: unknown,
  now: Date,
) {
  const parsed = payoutScriptSchema.safeParse(body ?? {});
  if (!parsed.success)
    throw new SimulatorError(422, 'invalid_parameter', describeIssues(parsed.error, 'body'));
  const script = parsed.data;
  if (script.id && stores.payouts.payouts.get(script.id))
    throw new SimulatorError(422, 'invalid_parameter', `id: ${script.id} already exists`);
  if (script.webhook_url && !script.secret)
    throw new SimulatorError(422, 'parameter_missing', 'secret: required with webhook_url');
  const payments = paymentsToPayOut(script, stores.payments, stores.payouts);
  const entries = withFaults(
    script,
    payments.flatMap((payment) => entriesOf(payment, script.fee_layout)),
    stores.payments,
    stores.payouts,
  );
  if (entries.length === 0)
    throw new SimulatorError(
      422,
      'invalid_parameter',
      'account_id: no settled payments waiting for a payout',
    );
  const payoutId = script.id ?? newId('po');
  const createdAt = new Date(now.getTime() - 1000).toISOString();
  // A payment's line keeps the id it had in the ledger before; a payment paid twice gets a new one.
  const taken = new Set<string>();
  const lines = entries.map((entry) => {
    const line = lineOf(entry, { script, payoutId, createdAt });
    const id = ledgerLineId(entry);
    if (taken.has(id) || stores.payouts.hasLine(id)) return line;
    taken.add(id);
    return { ...line, id };
  });
  const amount = entries.reduce((sum, entry) => sum + netOf(entry), 0);
  lines.push(
    lineOf(
      { txnType: 'payout', amount: -amount, source: [payoutId, 'payout'], paymentId: null },
      { script, payoutId, createdAt },
    ),
  );
  const payout: StoredResource = {
    id: payoutId,
    account_id: script.account_id,
    amount,
    currency: script.currency,
    status: script.status === 'scheduled' ? 'scheduled' : 'in_transit',
    payout_type: script.payout_type,
    delivery_method: 'standard',
    description: `Payout ${payoutId}`,
    deposits_at:
      script.deposits_at ??
      (script.status === 'paid' ? now : new Date(now.getTime() + 86_400_000)).toISOString(),
    ...totalsOf(entries),
    bank_account: { id: newId('ba'), acct_last_four: '6789', bank_name: 'Simulated Bank' },
    metadata: {},
    created_at: createdAt,
    updated_at: createdAt,
  };
  stores.payouts.put(payout, lines);
  const credited = entries.flatMap((entry) =>
    entry.txnType === 'seller_payment' && entry.paymentId ? [entry.paymentId] : [],
  );
  stores.payouts.markPaidOut(credited, payoutId);
  const statuses = [await notify(script, 'payout.created', payout)];
  if (script.status !== payout.status) {
    const final = await changePayoutStatus(stores.payouts, payoutId, script.status, now);
    statuses.push(await notify(script, EVENT_OF_STATUS[script.status] ?? 'payout.updated', final));
  }
  return {
    payout: stores.payouts.payouts.get(payoutId),
    lines,
    webhook_statuses: statuses.filter((s) => s !== null),
  };
}

/** Moves a payout to a new status (a failed or canceled one hands its payments back); returns the new state. */
export async function changePayoutStatus(store: PayoutStore, payoutId: string, status: string, now: Date) {
  const current = store.payouts.get(payoutId);
  if (!current) throw new SimulatorError(404, 'resource_not_found', 'no such payout');
  const after = Math.max(now.getTime(), Date.parse(current.updated_at as string) + 1000);
  const next: StoredResource = { ...current, status, updated_at: new Date(after).toISOString() };
  store.put(next);
  if (status === 'failed' || status === 'canceled') store.releasePaymentsOf(payoutId);
  return next;
}

/** Sends a payout event to the script's webhook target, if it names one; resolves to the answer's status. */
export async function notify(
  script: { account_id: string; webhook_url?: string; secret?: string },
  eventName: string,
  data: unknown,
) {
  if (!script.webhook_url || !script.secret) return null;
  return sendWebhook(
    { url: script.webhook_url, secret: script.secret },
    { eventName, accountId: script.account_id, data },
  );
}
