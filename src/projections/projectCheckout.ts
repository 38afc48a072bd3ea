import { listPaymentsOfCheckout } from '../db/listPaymentsOfCheckout.ts';
import type { Queryable } from '../db/pool.ts';
import { upsertCheckout } from '../db/upsertCheckout.ts';
import { redactCardNumbers } from '../domain/cardNumbers.ts';
import { checkoutCompletionSchema, checkoutSchema, checkoutStatus } from '../domain/checkoutSnapshot.ts';
import type { EventToProject } from './projectEvent.ts';

/**
 * Projects a checkout event: the checkout itself, or a completion object that names its checkout.
 * Returns the payments linked to it, whose checkout fee check the change may affect.
 */
export async function projectCheckout(
  db: Queryable,
  event: EventToProject,
  data: unknown,
): Promise<string[]> {
  const looksLikeCompletion = typeof data === 'object' && data !== null && 'checkout_id' in data;
  if (looksLikeCompletion) {
    const completion = checkoutCompletionSchema.parse(data);
    const updatedAt = completion.updated_at ?? completion.created_at ?? event.receivedAt;
    const { status, rank } = checkoutStatus(event.eventName, completion.status);
    await upsertCheckout(db, {
      id: completion.checkout_id,
      account_id: event.accountId,
      account_type: event.accountType,
      status,
      status_rank: rank,
      status_updated_at: updatedAt,
      status_event_row_id: event.rowId,
      payment_id: completion.payment_id ?? null,
      // A completion says nothing about the checkout's own fields: it never wins them.
      updated_at: '-infinity',
      event_row_id: event.rowId,
      snapshot: {},
    });
    return listPaymentsOfCheckout(db, completion.checkout_id);
  }
  const checkout = checkoutSchema.parse(data);
  const updatedAt = checkout.updated_at ?? checkout.created_at ?? event.receivedAt;
  const { status, rank } = checkoutStatus(event.eventName, checkout.status);
  await upsertCheckout(db, {
    id: checkout.id,
    account_id: checkout.account_id ?? event.accountId,
    account_type: event.accountType,
    amount: checkout.amount ?? null,
    description: checkout.description ?? null,
    payment_amount: checkout.payment_amount ?? null,
    status,
    status_rank: rank,
    status_updated_at: updatedAt,
    status_event_row_id: event.rowId,
    fees: checkout.payment?.fees ?? null,
    payment_id: checkout.payment_id ?? checkout.successful_payment_id ?? null,
    created_at: checkout.created_at ?? null,
    updated_at: updatedAt,
    event_row_id: event.rowId,
    snapshot: redactCardNumbers(data),
  });
  return listPaymentsOfCheckout(db, checkout.id);
}
