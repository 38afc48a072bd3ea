import { PAYABLE_PAYMENT_STATUSES } from '../domain/paymentStatuses.ts';
import type { FindingDraft } from '../findings/findings.ts';
import type { PaymentPayoutFacts, SyncedAccount } from './paymentPayoutQueries.ts';
import type { PaymentToCheck } from './payoutFactsQueries.ts';

const DAY_MS = 24 * 3600 * 1000;

// A dispute takes its money back in its own lines: a disputed payment is still paid out.
const PAID_OUT_STATUSES = new Set<string>(PAYABLE_PAYMENT_STATUSES);

/** The payout type that pays a payment out: bank accounts settle as `ach`, everything else as `cc`. */
const payoutTypeOf = (payment: Pick<PaymentToCheck, 'methodKind'>) =>
  payment.methodKind === 'ach' ? 'ach' : 'cc';

/** When a payment not yet paid out becomes a finding, or null when it is not judged at all. */
function payoutDueAt(
  payment: PaymentToCheck,
  account: SyncedAccount | null,
  expectedDays: Record<string, number>,
): Date | null {
  const days = expectedDays[payoutTypeOf(payment)];
  const created = payment.createdAt;
  if (days === undefined || created === null || account === null) return null;
  const { newestPayoutCreatedAt: newest, listedFrom } = account;
  // Only between the first full listing's start and the newest synced payout is "in no payout" evidence.
  if (newest === null || listedFrom === null || created >= newest || created < listedFrom) return null;
  if (!PAID_OUT_STATUSES.has(payment.status ?? '') || payment.returned) return null;
  if (payment.amountRefunded !== null && payment.amountRefunded >= payment.amount) return null;
  return new Date(created.getTime() + days * DAY_MS);
}

/**
 * Rule 3, every payment is paid out exactly once. Credited by more than one line of payouts that did not fail
 * (two payouts, or one twice): `payment_paid_out_twice` (error, at stake the payment's amount). Succeeded,
 * not fully refunded, older than `PAYOUT_EXPECTED_DAYS` for its payout type and in no payout, in an account
 * the payout sync lists and created between the start of its first full listing and the newest synced payout:
 * `payment_not_paid_out` (warning, at stake its amount).
 */
export function checkPaymentPayouts(
  facts: PaymentPayoutFacts,
  expectedDays: Record<string, number>,
  now: Date,
): FindingDraft[] {
  const { payment, credits } = facts;
  const subject = { subjectType: 'payment', subjectId: facts.paymentId };
  if (credits.length > 1) {
    const credited = credits.reduce((total, credit) => total + credit.amount, 0);
    const amount = payment?.amount ?? Math.max(...credits.map((credit) => credit.amount));
    return [
      {
        code: 'payment_paid_out_twice',
        severity: 'error',
        ...subject,
        expected: amount,
        actual: credited,
        details: {
          payouts: [...new Set(credits.map((credit) => credit.payoutId))],
          lines: credits.map((credit) => credit.lineId),
        },
        atStake: amount,
      },
    ];
  }
  if (payment === null || credits.length > 0) return [];
  const dueAt = payoutDueAt(payment, facts.account, expectedDays);
  if (dueAt === null || dueAt > now) return [];
  return [
    {
      code: 'payment_not_paid_out',
      severity: 'warning',
      ...subject,
      expected: payment.amount,
      actual: 0,
      details: {
        payout_type: payoutTypeOf(payment),
        status: payment.status,
        created_at: payment.createdAt?.toISOString() ?? null,
        due_at: dueAt.toISOString(),
        newest_payout_created_at: facts.account?.newestPayoutCreatedAt?.toISOString() ?? null,
      },
      atStake: payment.amount,
    },
  ];
}
