import type { SimulatedConfiguration } from '../../simulator/feeConfigurationStore.ts';
import { paymentEvent } from './deliveries.ts';

/** A fee of a test payment: `source` names a configuration of the simulator by its key, or is an id as is. */
export type Fee = { id: string; type: string; amount: number; source: string | null };

/**
 * The raw body of a `payment.succeeded` delivery of a visa card payment whose fees name the simulator's
 * configurations (`configs`, by key); `fee_amount` is the fees' sum. `fields` override any data field.
 */
export function pricedPaymentBody(
  configs: Record<string, SimulatedConfiguration>,
  payment: { accountId: string; id: string; amount: number; createdAt: string; fees: Fee[] },
  fields: Record<string, unknown> = {},
): string {
  const { accountId, id, fees } = payment;
  return JSON.stringify(
    paymentEvent({
      account_id: accountId,
      event_name: 'payment.succeeded',
      data: {
        id,
        account_id: accountId,
        amount: payment.amount,
        currency: 'usd',
        status: 'succeeded',
        payment_method: { card: { id: `pm_${id}`, brand: 'visa', acct_last_four: '4242' } },
        fee_amount: fees.reduce((sum, fee) => sum + fee.amount, 0),
        fees: fees.map((fee) => ({
          id: fee.id,
          type: fee.type,
          amount: fee.amount,
          remaining_amount: fee.amount,
          currency: 'usd',
          source_configuration_id: fee.source ? (configs[fee.source]?.id ?? fee.source) : null,
          source_fee_type: fee.source ? (configs[fee.source]?.fee_type ?? null) : null,
        })),
        created_at: payment.createdAt,
        updated_at: payment.createdAt,
        ...fields,
      },
    }),
  );
}
