// npm run simulator [-- --port 4010]: the provider simulator on a local port, seeded with a demo fee
// schedule for sub account `acc_demo`, for a local end-to-end run (see docs/reconciliation.md).
import { parseArgs } from 'node:util';
import { createSimulator } from './server.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4010' } } });
const clientId = 'test_demo_client';
const clientSecret = 'demo_secret';
const simulator = createSimulator({ clientId, clientSecret });
const start = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString();
for (const [feeType, rate, flat] of [
  ['processing_ecomm', 2.9, 30],
  ['processing_card_present', 2.6, 10],
  ['processing_ach', 0.8, 0],
  ['processing_ach_expedited', 1.5, 0],
  ['visa_brand_ecomm', 2.75, 30],
  ['platform', 0.5, 0],
] as const) {
  simulator.store.create('acc_demo', feeType, {
    variable_rate: rate,
    transaction_fee_cents: flat,
    effective_start: start,
  });
}
const port = Number(values.port);
simulator.app.listen(port, () => {
  process.stdout.write(
    `provider simulator on http://localhost:${port}\n` +
      `  PROVIDER_BASE_URL=http://localhost:${port} PROVIDER_CLIENT_ID=${clientId} PROVIDER_CLIENT_SECRET=${clientSecret}\n` +
      `  send a priced payment: curl -s localhost:${port}/dev/payments -H 'content-type: application/json' \\\n` +
      `    -d '{"webhook_url":"http://localhost:3000/webhooks","secret":"'$(cat .data/webhook-secret)'","account_id":"acc_demo","amount":1234}'\n` +
      `  controls: "drop_webhooks": true on /dev/payments, POST /dev/drop-webhooks, PUT /dev/payments/{id},\n` +
      `    PUT /dev/forwarding/requests/{id}, POST /dev/seed-payments (see docs/reconciliation.md, "Try it against the simulator")\n` +
      `  payouts: POST /dev/payouts, POST /dev/payouts/{id}/status (see docs/payouts-sync.md, "The provider simulator")\n` +
      `  bank statement of the paid payouts: GET /dev/bank-statement?format=csv|camt053|bai2 (see docs/payouts-sync.md, "The provider simulator")\n`,
  );
});
