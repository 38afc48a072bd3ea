import type { Queryable } from '../db/pool.ts';
import { redactCardNumbers } from '../domain/cardNumbers.ts';
import {
  type CheckoutCompletionRow,
  type CheckoutRow,
  listPaymentsOfCheckout,
  upsertCheckout,
} from './checkoutQueries.ts';
import {
  checkoutCompletionSchema,
  checkoutFeesOf,
  checkoutSchema,
  checkoutStatus,
} from './checkoutSnapshot.ts';
import type { EventToProject } from './event.ts';

/**
 * Projects a completion object (`chc_`): it links its checkout and the payment it made.
 * Returns the payments linked to the checkout, whose checkout fee check the change may affect.
 */
export async function projectCheckoutCompletion(
  db: Queryable,
  event: EventToProject,
  data: unknown,
): Promise<string[]> {
  const completion = checkoutCompletionSchema.parse(data);
  const updatedAt = completion.updated_at ?? completion.created_at ?? event.receivedAt;
  const { status, rank } = checkoutStatus(event.eventName, completion.status, 'completion');
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
  } satisfies CheckoutCompletionRow);
  return listPaymentsOfCheckout(db, completion.checkout_id);
}

/**
 * Projects a checkout. Returns the payments linked to it, whose checkout fee check the change may affect.
 */
export async function projectCheckout(
  db: Queryable,
  event: EventToProject,
  data: unknown,
): Promise<string[]> {
  const checkout = checkoutSchema.parse(data);
  const updatedAt = checkout.updated_at ?? checkout.created_at ?? event.receivedAt;
  const { status, rank } = checkoutStatus(event.eventName, checkout.status, 'checkout');
  await upsertCheckout(db, {
    id: checkout.id,
    account_id: checkout.account_id ?? event.accountId,
    account_type: event.accountType,
    amount: checkout.amount ?? null,
    description: checkout.description ?? null,
    payment_amount: checkout.payment_amount ?? null,
    currency: checkout.payment_currency?.toLowerCase() ?? null,
    status,
    status_rank: rank,
    status_updated_at: updatedAt,
    status_event_row_id: event.rowId,
    fees: checkoutFeesOf(checkout),
    payment_id: checkout.payment_id ?? checkout.successful_payment_id ?? null,
    created_at: checkout.created_at ?? null,
    updated_at: updatedAt,
    event_row_id: event.rowId,
    snapshot: redactCardNumbers(data),
  } satisfies CheckoutRow);
  return listPaymentsOfCheckout(db, checkout.id);
}
