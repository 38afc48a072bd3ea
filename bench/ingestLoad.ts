// The load generator of `npm run bench:ingest`, run as its own process so it does not share a CPU queue
// with Tally: signed ~1.4 KB payment events, 10 % of them redeliveries, for a fixed time.
//   node bench/ingestLoad.ts URL SECRET SECONDS CONNECTIONS [RATE]
import autocannon from 'autocannon';
import { sign } from '../src/ingest/signature.ts';

const [url, secret, seconds, connections, rate] = process.argv.slice(2);
if (!url || !secret) throw new Error('usage: node bench/ingestLoad.ts URL SECRET SECONDS CONNECTIONS [RATE]');
const run = `${process.pid}_${Date.now()}`;
const sent: string[] = [];
let counter = 0;

function body(): string {
  // One in ten is a redelivery of something already sent, as the provider's retries produce.
  if (sent.length > 0 && Math.random() < 0.1) return sent[Math.floor(Math.random() * sent.length)] as string;
  counter += 1;
  const id = `${run}_${counter}`;
  const text = JSON.stringify({
    id: `evt_${id}`,
    event_name: 'payment.succeeded',
    account_id: `acc_${counter % 50}`,
    account_type: 'live',
    platform_account_id: 'acc_platform',
    idempotency_key: `idem_${id}`,
    request_id: `req_${id}`,
    version: 'v1',
    data: {
      id: `py_${id}`,
      account_id: `acc_${counter % 50}`,
      amount: 1000 + (counter % 9000),
      currency: 'usd',
      status: 'succeeded',
      capture_strategy: 'automatic',
      captured: true,
      payment_mode: 'ecom',
      fee_amount: 64,
      fees: [
        {
          id: `pyfee_${id}_p`,
          type: 'processing_fee',
          amount: 58,
          remaining_amount: 58,
          currency: 'usd',
          source_configuration_id: 'sfc_visa',
          source_fee_type: 'visa_brand_ecomm',
        },
        {
          id: `pyfee_${id}_f`,
          type: 'platform_fee',
          amount: 6,
          remaining_amount: 6,
          currency: 'usd',
          source_configuration_id: 'sfc_platform',
          source_fee_type: 'platform',
        },
      ],
      application_fee_amount: null,
      amount_refunded: 0,
      refunds: [],
      error_code: null,
      error_description: null,
      checkout_id: null,
      payment_method: {
        card: {
          id: `pm_${id}`,
          brand: 'visa',
          acct_last_four: '4242',
          name: 'Benchmark Customer',
          exp_month: 12,
          exp_year: 2030,
        },
      },
      description: 'Order for the ingest benchmark, padded to a realistic size'.padEnd(140, '.'),
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      is_test: false,
      metadata: { order_id: `ord_${id}`, customer_ref: `cus_${counter % 1000}`, channel: 'web' },
    },
  });
  if (sent.length < 5000) sent.push(text);
  else sent[counter % 5000] = text;
  return text;
}

const result = await autocannon({
  url: `${url}/webhooks`,
  connections: Number(connections ?? 32),
  duration: Number(seconds ?? 20),
  ...(rate ? { overallRate: Number(rate) } : {}),
  requests: [
    {
      method: 'POST',
      setupRequest: (request) => {
        const raw = body();
        const timestamp = String(Math.floor(Date.now() / 1000));
        return {
          ...request,
          body: raw,
          headers: {
            'content-type': 'application/json',
            'justifi-timestamp': timestamp,
            'justifi-signature': sign(secret, timestamp, raw),
          },
        };
      },
    },
  ],
});
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    bodyBytes: Buffer.byteLength(body()),
  })}\n`,
);
