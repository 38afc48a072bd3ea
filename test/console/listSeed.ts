import { withTransaction } from '../../src/db/pool.ts';
import type { FindingDraft } from '../../src/findings/findings.ts';
import { recordFindings } from '../../src/findings/recordFindings.ts';
import { attempt, DO_NOT_RETRY, RETRY_LATER } from '../declines/declineDeliveries.ts';
import { deliverPayment } from '../findings/workflow/helpers.ts';
import { API_TOKEN, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, runJobThroughApi, settle } from '../helpers/fixtures.ts';
import { insertPayout } from '../payouts/readFixtures.ts';
import { seedPayouts } from '../payouts/readSeed.ts';

// Ids as long as the provider's (a prefix and a 26-character ULID), and an account named like a real platform's.
export const ACCOUNT = 'acc_01JDXK7Q2M9V4T8B6N3R5W0Y1Z';
const paymentId = (n: number) => `py_01JDXK7Q2M9V4T8B6N3R5W0Y${String(n).padStart(2, '0')}`;
const LONG_SENTENCE =
  'The configuration that priced this payment was replaced while the payment was in flight, so the fee ' +
  'charged and the fee the schedule gives differ; the provider’s support confirmed the new rate applies.';

/** Findings with JSON expected and actual values and long details, as reconciliation records them. */
const drafts = (): FindingDraft[] => [
  {
    code: 'checkout_fee_mismatch',
    severity: 'error',
    subjectType: 'payment',
    subjectId: paymentId(10),
    expected: { platform: 200, processing_ecomm: 365, visa_brand_ecomm: 310 },
    actual: { platform: 150, processing_ecomm: 395, visa_brand_ecomm: 280 },
    atStake: 1_234_567,
    details: {
      payment_id: paymentId(10),
      note: LONG_SENTENCE,
      checkout_id: 'chk_01JDXK7Q2M9V4T8B6N3R5W0Y1Z',
    },
  },
  {
    code: 'fee_configuration_not_effective',
    severity: 'warning',
    subjectType: 'payment_fee',
    subjectId: 'pyfee_01JDXK7Q2M9V4T8B6N3R5W0Y11',
    expected: { effective_start: '2026-10-01T00:00:00.000Z', effective_end: '2026-10-31T23:59:59.999Z' },
    actual: '2026-11-01T12:00:00.000Z',
    atStake: 4_200,
    details: { payment_id: paymentId(11), explanation: LONG_SENTENCE },
  },
  {
    code: 'ach_return',
    severity: 'error',
    subjectType: 'payment',
    subjectId: paymentId(12),
    expected: null,
    actual: 'PAYMENT_STOPPED',
    atStake: 250_000,
    details: {
      code: 'PAYMENT_STOPPED',
      known: true,
      category: 'authorization_revoked_or_disputed',
      retryable: false,
      meaning: 'The customer stopped this payment at the bank.',
      error_code: null,
      description: 'PAYMENT_STOPPED',
      late: true,
      amount: 250_000,
      succeeded_at: '2026-11-01T00:00:00.000Z',
      failed_at: '2026-11-05T00:00:00.000Z',
    },
  },
  {
    code: 'forwarding_outcome_conflict',
    severity: 'error',
    subjectType: 'payment',
    subjectId: paymentId(13),
    expected: 'succeeded',
    actual: 'failed',
    atStake: null,
    details: { payment_id: paymentId(13), forwarding_request_id: 'fwd_01JDXK7Q2M9V4T8B6N3R5W0Y1Z' },
  },
];

/**
 * Rows for every console list, with provider-length ids and long text: deliveries and fee findings through
 * the webhook and the worker, findings of other kinds through the finding store, a dispute and declines as
 * deliveries, payouts and alerts as their stages leave them, and a daily report through the jobs API.
 */
export async function seedConsoleLists(t: TestApp): Promise<void> {
  for (const n of [1, 2, 3]) await deliverPayment(t, paymentId(n), 71, ACCOUNT);
  await withTransaction(t.pool, (client) =>
    recordFindings(
      client,
      { scope: 'console-lists', accountId: ACCOUNT, currency: 'usd', now: new Date('2026-11-05T10:00:00Z') },
      drafts(),
    ),
  );
  const dispute = paymentEvent({
    account_id: ACCOUNT,
    event_name: 'payment.dispute.created',
    data: {
      id: 'dp_01JDXK7Q2M9V4T8B6N3R5W0Y1Z',
      payment_id: paymentId(1),
      amount: 123_456,
      currency: 'usd',
      reason: 'product_not_received_or_not_as_described',
      due_date: '2026-11-20',
      status: 'needs_response',
      created_at: '2026-11-03T09:00:00Z',
      updated_at: '2026-11-03T09:00:00Z',
    },
  });
  await deliver(t.app, [
    JSON.stringify(dispute),
    attempt({ id: paymentId(20), account: ACCOUNT, at: '2026-11-04T10:00:00Z', decline: DO_NOT_RETRY }),
    attempt({
      id: paymentId(21),
      account: ACCOUNT,
      at: '2026-11-04T11:00:00Z',
      card: { id: 'pm_01JDXK7Q2M9V4T8B6N3R5W0Y21' },
      decline: RETRY_LATER,
    }),
  ]);
  await settle(t);
  await seedPayouts(t.pool);
  await insertPayout(t.pool, {
    id: 'po_01JDXK7Q2M9V4T8B6N3R5W0Y1Z',
    account_id: ACCOUNT,
    amount: 98_765_432,
    currency: 'usd',
    status: 'in_transit',
    deposits_at: '2026-11-06T12:00:00Z',
    created_at: '2026-11-05T08:00:00Z',
    updated_at: '2026-11-05T08:00:00Z',
    line_count: 1_250,
    lines_complete: false,
    description: LONG_SENTENCE,
  });
  await t.pool.query(
    `insert into alerts (dedupe_key, kind, subject_id, account_id, payload, status, attempts, last_error, created_at)
     values ('console-lists-1', 'finding_opened', $1, $2, '{}', 'failed', 5, $3, '2026-11-05T10:00:00Z'),
            ('console-lists-2', 'finding_opened', $4, $2, '{}', 'sent', 1, null, '2026-11-05T10:01:00Z')`,
    [
      paymentId(10),
      ACCOUNT,
      'POST https://alerts.finance-team.example.com/hooks/tally/01JDXK7Q2M9V4T8B6N3R5W0Y1Z answered 503 ' +
        'Service Unavailable after 30000 ms: upstream connect error or disconnect/reset before headers',
      paymentId(12),
    ],
  );
  await runJobThroughApi(t, { Authorization: `Bearer ${API_TOKEN}` }, 'daily-report', { date: '2026-11-04' });
  await seedSubscription(t);
}

/** A failing subscription to a long URL, with a long error among its attempts and a change given up on. */
async function seedSubscription(t: TestApp): Promise<void> {
  const { rows } = await t.pool.query<{ id: number }>(
    `insert into subscriptions (url, types, description, secret, queued_through, failing_since)
     values ($1, '{payment.*,refund.created,dispute.*,finding.opened}', $2, 'whsec_c2VjcmV0', 0, now() - interval '2 hours')
     returning id`,
    [`https://orders.internal.merchant-services.example.com/tally/changes/${ACCOUNT}/receive`, LONG_SENTENCE],
  );
  const id = rows[0]?.id;
  await t.pool.query(
    `insert into subscription_deliveries (subscription_id, seq, object, object_id, recorded_at, status, attempts,
                                          first_attempt_at)
     values ($1, 1, 'payment', $2, now() - interval '3 days', 'failed', 25, now() - interval '3 days'),
            ($1, 2, 'payment', $3, now() - interval '2 hours', 'pending', 4, now() - interval '2 hours')`,
    [id, paymentId(1), paymentId(2)],
  );
  await t.pool.query(
    `insert into subscription_attempts (subscription_id, seq, attempted_at, outcome, status_code, duration_ms, error)
     values ($1, 2, now() - interval '1 hour', 'http_error', 503, 40, 'answered 503'),
            ($1, 2, now() - interval '30 minutes', 'network_error', null, 10000, $2),
            ($1, 1, now() - interval '20 minutes', 'delivered', 200, 12, null)`,
    [id, `${LONG_SENTENCE} ECONNRESET`],
  );
}
