import { paymentEvent } from '../helpers/deliveries.ts';

export type Attempt = {
  id: string;
  account?: string;
  amount?: number;
  at: string;
  card?: Record<string, unknown>;
  /** Absent: the payment succeeded. */
  decline?: Record<string, unknown>;
};

/** A card payment delivery: `payment.failed` with the decline's fields, or `payment.succeeded`. */
export function attempt({ id, account = 'acc_decl_1', amount = 5000, at, card, decline }: Attempt): string {
  return JSON.stringify(
    paymentEvent({
      account_id: account,
      event_name: decline ? 'payment.failed' : 'payment.succeeded',
      data: {
        id,
        account_id: account,
        amount,
        currency: 'usd',
        status: decline ? 'failed' : 'succeeded',
        payment_mode: 'ecom',
        fees: [],
        created_at: at,
        updated_at: at,
        payment_method: { card: { id: 'pm_decl_1', brand: 'visa', acct_last_four: '4242', ...card } },
        ...decline,
      },
    }),
  );
}

export const DO_NOT_RETRY = {
  error_code: 'card_declined',
  decline_code: 'do_not_retry',
  network: 'MASTERCARD',
  network_error_code: '504',
  network_error_category: '03',
};

export const RETRY_LATER = {
  error_code: 'card_declined',
  decline_code: 'insufficient_funds',
  network: 'VISA',
  network_error_code: '116',
  network_error_category: '2',
};
