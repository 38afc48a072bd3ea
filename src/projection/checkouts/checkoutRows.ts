import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import type { EventToProject } from '../event.ts';
import type { CheckoutCompletionRow, CheckoutRow } from './checkoutQueries.ts';
import {
  checkoutCompletionSchema,
  checkoutFeesOf,
  checkoutSchema,
  checkoutStatus,
} from './checkoutSnapshot.ts';

/** What a completion object (`chc_`) says about its checkout: its status and the payment it made. */
export function checkoutCompletionRowOf(event: EventToProject, data: unknown): CheckoutCompletionRow {
  const completion = checkoutCompletionSchema.parse(data);
  const updatedAt = completion.updated_at ?? completion.created_at ?? event.receivedAt;
  const { status, rank } = checkoutStatus(event.eventName, completion.status, 'completion');
  return {
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
  };
}

/** The row of a checkout snapshot. */
export function checkoutRowOf(event: EventToProject, data: unknown): CheckoutRow {
  const checkout = checkoutSchema.parse(data);
  const updatedAt = checkout.updated_at ?? checkout.created_at ?? event.receivedAt;
  const { status, rank } = checkoutStatus(event.eventName, checkout.status, 'checkout');
  return {
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
  };
}
