import type { SyncedAccount } from '../../src/payouts/paymentPayoutQueries.ts';
import type {
  PaymentToCheck,
  PaymentWithObjects,
  PayoutLineToCheck,
  PayoutToCheck,
} from '../../src/payouts/payoutFactsQueries.ts';

export const t = (iso: string) => new Date(iso);

/** A paid payout of 0 with no stated totals; override what a case needs. */
export const payout = (overrides: Partial<PayoutToCheck> = {}): PayoutToCheck => ({
  id: 'po_1',
  accountId: 'acc_1',
  amount: 0,
  currency: 'usd',
  status: 'paid',
  payoutType: 'cc',
  depositsAt: t('2024-06-10T00:00:00Z'),
  paymentsCount: null,
  paymentsTotal: null,
  refundsCount: null,
  refundsTotal: null,
  feesTotal: null,
  otherTotal: null,
  createdAt: t('2024-06-08T00:00:00Z'),
  linesComplete: true,
  version: '1',
  ...overrides,
});

/** A line of po_1 with net = amount - fee. */
export const line = (
  id: string,
  kind: PayoutLineToCheck['kind'],
  txnType: string,
  amount: number,
  overrides: Partial<PayoutLineToCheck> = {},
): PayoutLineToCheck => {
  const fee = overrides.fee ?? 0;
  return {
    id,
    payoutId: 'po_1',
    txnType,
    kind,
    amount,
    fee,
    net: amount - fee,
    sourceId: null,
    sourceType: null,
    paymentId: 'py_1',
    ...overrides,
  };
};

/** A succeeded card payment of 10000 created 2024-06-01. */
export const paymentRow = (overrides: Partial<PaymentToCheck> = {}): PaymentToCheck => ({
  id: 'py_1',
  accountId: 'acc_1',
  currency: 'usd',
  amount: 10000,
  status: 'succeeded',
  methodKind: 'card',
  returned: false,
  amountRefunded: null,
  createdAt: t('2024-06-01T00:00:00Z'),
  ...overrides,
});

export const paymentWithObjects = (overrides: Partial<PaymentWithObjects> = {}): PaymentWithObjects => ({
  ...paymentRow(),
  fees: [],
  refunds: [],
  ...overrides,
});

export const syncedAccount = (overrides: Partial<SyncedAccount> = {}): SyncedAccount => ({
  accountId: 'acc_1',
  newestPayoutCreatedAt: t('2024-06-20T00:00:00Z'),
  listedFrom: t('2024-05-01T00:00:00Z'),
  ...overrides,
});
