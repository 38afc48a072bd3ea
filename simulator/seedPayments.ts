import type { FeeConfigurationStore } from './feeConfigurationStore.ts';
import { SimulatorError } from './feeConfigurationStore.ts';
import type { ResourceStore, StoredResource } from './resourceStore.ts';
import { createPaymentPricer, newId } from './scriptedPayment.ts';

export type SeedPaymentsOptions = {
  /** Creation times are spread evenly over [from, to). */
  createdBetween: [Date, Date];
  currency?: 'usd' | 'cad';
  status?: string;
};

// Ceiling so a typo in a benchmark cannot exhaust the simulator's memory.
const MAX_SEEDED = 1_000_000;

/**
 * Many succeeded card payments of one sub account, priced with the configurations in force at each
 * creation time and stored without any webhook (for benchmarks of the sweep and of paging). One bulk
 * load: the account's list is sorted once, not once per payment.
 */
export function seedPayments(
  stores: { feeConfigurations: FeeConfigurationStore; payments: ResourceStore },
  count: number,
  account: string,
  options: SeedPaymentsOptions,
): StoredResource[] {
  const [from, to] = options.createdBetween;
  if (!Number.isInteger(count) || count < 1 || count > MAX_SEEDED)
    throw new SimulatorError(
      422,
      'invalid_parameter',
      `count must be a whole number from 1 to ${MAX_SEEDED}`,
    );
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || to <= from)
    throw new SimulatorError(422, 'invalid_parameter', 'createdBetween must be two dates, the first earlier');
  const price = createPaymentPricer(stores.feeConfigurations, account);
  const step = (to.getTime() - from.getTime()) / count;
  const payments: StoredResource[] = [];
  for (let index = 0; index < count; index++) {
    const createdAt = new Date(from.getTime() + Math.floor(index * step));
    const script = {
      account_id: account,
      // Varied amounts within the seed's bounds (51 to 99,999,999 cents), deterministic per index.
      amount: 100 + ((index * 7919) % 50_000),
      currency: options.currency ?? 'usd',
      method: 'card' as const,
      brand: 'visa',
      expedited: false,
    };
    payments.push({ ...price(script, createdAt, newId('py')), status: options.status ?? 'succeeded' });
  }
  stores.payments.putMany(payments);
  return payments;
}
