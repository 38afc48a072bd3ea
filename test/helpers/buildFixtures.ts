// Writes test/fixtures/recorded/<event name>.jsonl: one recorded delivery per line, signed with
// FIXTURE_SECRET at a fixed time. Shapes follow the seed and the provider SDK event. Run:
//   node test/helpers/buildFixtures.ts
import { writeFileSync } from 'node:fs';
import { sign } from '../../src/ingest/signature.ts';

export const FIXTURE_SECRET = 'whsec_fixture_secret';
const DIR = new URL('../fixtures/recorded/', import.meta.url);
const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 10, minute)).toISOString();

const fees = (remaining: [number, number]) => [
  {
    id: 'pyfee_card_proc',
    type: 'processing_fee',
    amount: 34,
    remaining_amount: remaining[0],
    currency: 'usd',
    source_configuration_id: 'sfc_visa_1',
    source_fee_type: 'visa_brand_ecomm',
  },
  {
    id: 'pyfee_card_plat',
    type: 'platform_fee',
    amount: 25,
    remaining_amount: remaining[1],
    currency: 'usd',
    source_configuration_id: null,
    source_fee_type: null,
  },
];

const card = {
  card: { id: 'pm_card_1', acct_last_four: '4242', brand: 'visa', name: 'Ada Lovelace', token: 'pm_card_1' },
};
const bank = { bank_account: { id: 'pm_bank_1', acct_last_four: '6789', bank_name: 'Test Bank' } };

const payment = (fields: Record<string, unknown>) => ({
  account_id: 'acc_sub_usd',
  amount: 1234,
  currency: 'usd',
  capture_strategy: 'automatic',
  captured: true,
  fee_amount: 59,
  application_fee_amount: null,
  amount_refunded: 0,
  error_code: null,
  error_description: null,
  checkout_id: null,
  is_test: true,
  metadata: null,
  refunds: [],
  ...fields,
});

const returned = (status: string, minute: number) => ({
  id: 're_card_1',
  payment_id: 'py_card_1',
  amount: 500,
  reason: 'customer_request',
  status,
  returned_fees: [
    {
      id: 'rtfee_card_proc',
      payment_fee_id: 'pyfee_card_proc',
      type: 'processing_fee',
      returned_amount: 14,
      original_amount: 34,
      remaining_amount: 20,
      currency: 'usd',
    },
  ],
  created_at: at(20),
  updated_at: at(minute),
});

const forwarding = (id: string, fields: Record<string, unknown>) => ({
  id,
  account_id: 'acc_sub_usd',
  payment_method_id: 'pm_card_1',
  url: 'https://vault.example.com/charge',
  http_method: 'POST',
  provider: 'example_vault',
  replacements: ['card_number'],
  request: { body: { number: '{{card_number}}' }, headers: { Authorization: '[FILTERED]' } },
  created_at: at(40),
  ...fields,
});

const checkout = (fields: Record<string, unknown>) => ({
  id: 'cho_1',
  account_id: 'acc_sub_usd',
  amount: 2000,
  description: 'Order 77',
  payment_amount: 2000,
  payment: { fees: [{ type: 'platform_fee', amount: 100 }] },
  created_at: at(50),
  ...fields,
});

// event name → the `data` of each delivery of it, in the order they would be sent.
const deliveries: Record<string, Record<string, unknown>[]> = {
  'payment.created': [
    payment({
      id: 'py_card_1',
      status: 'pending',
      captured: false,
      fees: [],
      fee_amount: 0,
      payment_method: card,
      created_at: at(0),
      updated_at: at(0),
    }),
  ],
  'payment.succeeded': [
    payment({
      id: 'py_card_1',
      status: 'succeeded',
      fees: fees([34, 25]),
      payment_method: card,
      created_at: at(0),
      updated_at: at(1),
    }),
    payment({
      id: 'py_ach_1',
      status: 'succeeded',
      payment_method: bank,
      fees: [],
      fee_amount: 0,
      created_at: at(5),
      updated_at: at(6),
    }),
  ],
  'payment.updated': [
    payment({
      id: 'py_card_1',
      status: 'partially_refunded',
      amount_refunded: 500,
      fees: fees([20, 25]),
      payment_method: card,
      refunds: [returned('succeeded', 22)],
      created_at: at(0),
      updated_at: at(22),
    }),
  ],
  'payment.refunded': [returned('pending', 20)],
  'payment.refund.updated': [returned('succeeded', 22)],
  'payment.pending': [
    payment({
      id: 'py_ach_1',
      status: 'pending',
      captured: false,
      payment_method: bank,
      fees: [],
      fee_amount: 0,
      created_at: at(5),
      updated_at: at(5),
    }),
  ],
  'payment.failed': [
    payment({
      id: 'py_ach_1',
      status: 'failed',
      payment_method: bank,
      fees: [
        {
          id: 'pyfee_ach_proc',
          type: 'processing_fee',
          amount: 12,
          remaining_amount: 12,
          currency: 'usd',
          source_configuration_id: 'sfc_ach_1',
          source_fee_type: 'processing_ach',
        },
      ],
      fee_amount: 12,
      error_code: 'ach_return',
      error_description: 'INSUFFICIENT_FUNDS',
      created_at: at(5),
      updated_at: at(35),
    }),
  ],
  'payment.authorized': [
    payment({
      id: 'py_manual_1',
      status: 'authorized',
      capture_strategy: 'manual',
      captured: false,
      payment_method: card,
      created_at: at(10),
      updated_at: at(10),
    }),
    payment({
      id: 'py_manual_2',
      status: 'authorized',
      capture_strategy: 'manual',
      captured: false,
      payment_method: card,
      created_at: at(11),
      updated_at: at(11),
    }),
  ],
  'payment.captured': [
    payment({
      id: 'py_manual_1',
      status: 'succeeded',
      capture_strategy: 'manual',
      captured: true,
      payment_method: card,
      created_at: at(10),
      updated_at: at(30),
    }),
  ],
  'payment.canceled': [
    payment({
      id: 'py_manual_2',
      status: 'canceled',
      capture_strategy: 'manual',
      captured: false,
      payment_method: card,
      created_at: at(11),
      updated_at: at(31),
    }),
  ],
  'checkout.created': [checkout({ status: 'created', updated_at: at(50) })],
  'checkout.completion.processing': [
    {
      id: 'chc_1',
      checkout_id: 'cho_1',
      payment_id: null,
      status: 'processing',
      created_at: at(51),
      updated_at: at(51),
    },
  ],
  'checkout.completion.failed': [
    {
      id: 'chc_2',
      checkout_id: 'cho_2',
      payment_id: null,
      status: 'failed',
      created_at: at(52),
      updated_at: at(52),
    },
  ],
  'checkout.completion.succeeded': [
    {
      id: 'chc_3',
      checkout_id: 'cho_1',
      payment_id: 'py_checkout_1',
      status: 'succeeded',
      created_at: at(53),
      updated_at: at(53),
    },
  ],
  'checkout.completed': [checkout({ status: 'completed', payment_id: 'py_checkout_1', updated_at: at(54) })],
  'forwarding_request.completed': [
    forwarding('fwd_1', {
      status: 'completed',
      failure_reason: null,
      attempted_at: at(41),
      updated_at: at(41),
      response: {
        id: 'fwdr_1',
        status_code: 402,
        body: { error: 'declined', card: '4242 4242 4242 4242' },
        headers: { 'content-type': 'application/json' },
        response_time_ms: 180,
      },
    }),
  ],
  'forwarding_request.failed': [
    forwarding('fwd_2', {
      status: 'failed',
      failure_reason: 'timeout',
      response: null,
      attempted_at: at(42),
      updated_at: at(44),
    }),
  ],
};

let counter = 0;
for (const [eventName, datas] of Object.entries(deliveries)) {
  const lines = datas.map((data) => {
    counter += 1;
    const body = JSON.stringify({
      id: `evt_fixture_${String(counter).padStart(3, '0')}`,
      account_id: 'acc_sub_usd',
      account_type: 'test',
      platform_account_id: 'acc_platform',
      idempotency_key: null,
      request_id: null,
      version: 'v1',
      data,
      event_name: eventName,
    });
    const receivedAt = new Date(Date.UTC(2026, 10, 2, 11, 0, counter));
    const timestamp = String(receivedAt.getTime() / 1000);
    return JSON.stringify({
      received_at: receivedAt.toISOString(),
      headers: { 'justifi-timestamp': timestamp, 'justifi-signature': sign(FIXTURE_SECRET, timestamp, body) },
      body,
    });
  });
  writeFileSync(new URL(`${eventName}.jsonl`, DIR), `${lines.join('\n')}\n`);
}
