import request from 'supertest';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { paymentEvent, postSigned } from '../../helpers/deliveries.ts';
import { settle } from '../../helpers/fixtures.ts';

export const READ_TOKEN = 'read-token-for-tests-0123456789';
export const ALICE_TOKEN = 'alice-admin-token-0123456789';
/** API_TOKEN (admin, named `admin`) plus a second admin and a read-only token. */
export const TOKENS_ENV = { API_TOKENS: `alice:admin:${ALICE_TOKEN},auditor:read:${READ_TOKEN}` };

let version = 0;

/**
 * Delivers a state of payment `id` whose fees add up to 70 while `fee_amount` says `feeAmount` (each call a
 * newer `updated_at`), and waits for its reconciliation: 71 opens `fee_total_mismatch`, 70 resolves it.
 * `signedAt` is the delivery's signature time: the app's clock, when a test sets that clock.
 */
export async function deliverPayment(
  t: TestApp,
  id: string,
  feeAmount: number,
  account = 'acc_flow',
  signedAt = new Date(),
) {
  version += 1;
  const updatedAt = new Date(Date.UTC(2026, 10, 1, 12, 0, version)).toISOString();
  const event = paymentEvent({
    account_id: account,
    event_name: 'payment.succeeded',
    data: {
      id,
      account_id: account,
      amount: 1234,
      currency: 'usd',
      status: 'succeeded',
      payment_method: { card: { id: `pm_${id}`, brand: 'visa', acct_last_four: '4242' } },
      fee_amount: feeAmount,
      fees: [
        {
          id: `pyfee_${id}`,
          type: 'processing_fee',
          amount: 70,
          remaining_amount: 70,
          currency: 'usd',
          source_configuration_id: null,
          source_fee_type: null,
        },
      ],
      created_at: '2026-11-01T12:00:00.000Z',
      updated_at: updatedAt,
    },
  });
  const timestamp = String(Math.floor(signedAt.getTime() / 1000));
  expect((await postSigned(t.app, JSON.stringify(event), { timestamp })).status).toBe(200);
  await settle(t);
  return event;
}

/** The current (not resolved) fee_total_mismatch of a payment through the API. */
export async function findingsOf(t: TestApp, token: string, paymentId: string) {
  const response = await request(t.app)
    .get(`/api/findings?code=fee_total_mismatch&subject_id=${paymentId}&limit=100`)
    .set({ Authorization: `Bearer ${token}` });
  expect(response.status).toBe(200);
  return response.body.data as { id: string; status: string; expected: unknown; actual: unknown }[];
}
