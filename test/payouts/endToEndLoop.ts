import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { expect } from 'vitest';
import { sendWebhook } from '../../simulator/webhook.ts';
import { closeServer, serve } from '../../src/api/serve.ts';
import { API_TOKEN, SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { drain, runJobThroughApi, unfinishedJobs } from '../helpers/fixtures.ts';
import { startSimulator } from '../helpers/simulator.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

// The whole payout loop over HTTP: the provider simulator prices payments with its fee configurations and
// pays them out, sending signed webhooks to a Tally listening on a real port, whose real worker projects
// them, syncs payout lines and judges them. One simulator and one Tally per test file.

export const auth = { Authorization: `Bearer ${API_TOKEN}` };
export const DAY = 24 * 3600_000;

// Upstream first: a payout delivery queues a payout-sync, whose snapshots queue reconciliations.
const QUEUES = ['fee-configuration-sync', 'payout-sync', 'reconcile-payments', 'reconcile-payouts'];

export type Loop = Awaited<ReturnType<typeof startLoop>>;

/** A finding as `Loop.findings` reads it: in usd, its severity, its subject and the exact cents at stake. */
export function usdFinding(code: string, severity: string, subject: [string, unknown], atStake: number) {
  return {
    code,
    severity,
    subject_type: subject[0],
    subject_id: subject[1],
    currency: 'usd',
    at_stake: atStake,
  };
}

/** Findings in the order `Loop.findings` returns them. */
export const bySubject = <T extends { subject_id: unknown }>(findings: T[]) =>
  [...findings].sort((a, b) => String(a.subject_id).localeCompare(String(b.subject_id)));

/** Fee configurations a month old: Visa online 2.75 % + 30 ¢, online 2.9 % + 30 ¢, platform 0.5 %, ACH 1 %. */
const CONFIGURATIONS = [
  ['processing_ecomm', 2.9, 30],
  ['visa_brand_ecomm', 2.75, 30],
  ['platform', 0.5, 0],
  ['processing_card_present', 1, 0],
  ['processing_ach', 1, 0],
  ['processing_ach_expedited', 1, 0],
] as const;

/**
 * Starts the simulator (with `ACCOUNT`'s fee configurations) and Tally with its worker, both on `now`, and
 * has Tally sync the configurations, so every payment is fee-checked against them.
 */
export async function startLoop(
  account: string,
  options: { now?: () => Date; env?: Record<string, string> },
) {
  const now = options.now ?? (() => new Date());
  const provider = await startSimulator(now);
  const configurations: Record<string, string> = {};
  for (const [feeType, rate, flat] of CONFIGURATIONS)
    configurations[feeType] = provider.simulator.store.create(account, feeType, {
      variable_rate: rate,
      transaction_fee_cents: flat,
      fee_cap_cents: null,
      effective_start: new Date(now().getTime() - 30 * DAY).toISOString(),
    }).id;
  const t: TestApp = await startTestApp({
    worker: true,
    now,
    env: { ...provider.env, PROVIDER_SUB_ACCOUNTS: account, ...options.env },
  });
  const server = await serve(t.app, 0);
  const webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  const target = { webhook_url: webhookUrl, secret: SECRETS[0] };

  /** Waits until every delivery is projected and every job it led to (and theirs) has finished. */
  async function settleLoop() {
    // Quiet twice in a row: a job that finishes can queue the next one (a sync queues its reconciliation).
    let quiet = 0;
    await waitFor(
      'the loop to settle',
      async () => {
        await drain(t);
        const unfinished = await unfinishedJobs(t, QUEUES);
        quiet = unfinished.length === 0 ? quiet + 1 : 0;
        until(quiet >= 2, `unfinished: ${JSON.stringify(unfinished)}`);
      },
      { timeoutMs: 30_000 },
    );
  }

  async function runJob(name: string, payload: object = {}) {
    await runJobThroughApi(t, auth, name, payload);
    await settleLoop();
  }

  await runJob('fee-configuration-sync');

  return {
    t,
    provider,
    simulator: provider.simulator,
    configurations,
    target,
    settleLoop,
    runJob,
    /** `POST /dev/payments`: a payment priced by the simulator, its webhooks signed and sent to Tally. */
    async pay(amount: number, fields: Record<string, unknown> = {}) {
      const response = await request(provider.simulator.app)
        .post('/dev/payments')
        .send({ account_id: account, amount, ...target, ...fields });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.payment as { id: string; fees: { id: string; type: string; amount: number }[] };
    },
    /**
     * A succeeded refund of the payment returning part of its processing fee: the provider's state (what its
     * payouts debit) and, unless held back, the `payment.refunded` webhook that tells Tally.
     */
    async refund(
      payment: { id: string; fees: { id: string; type: string; amount: number }[] },
      amount: number,
      returned: number,
      options: { deliver?: boolean } = {},
    ) {
      const fee = payment.fees.find((candidate) => candidate.type === 'processing_fee');
      if (!fee) throw new Error('the payment has no processing fee');
      const at = now().toISOString();
      const refund = {
        id: `re_${payment.id.slice(3)}`,
        payment_id: payment.id,
        amount,
        status: 'succeeded',
        reason: 'customer_request',
        returned_fees: [
          {
            id: `rtfee_${payment.id.slice(3)}`,
            payment_fee_id: fee.id,
            type: 'processing_fee',
            returned_amount: returned,
            original_amount: fee.amount,
            remaining_amount: fee.amount - returned,
            currency: 'usd',
          },
        ],
        created_at: at,
        updated_at: at,
      };
      const stored = provider.simulator.payments.get(payment.id);
      provider.simulator.putPayment({
        ...stored,
        status: 'partially_refunded',
        amount_refunded: amount,
        refunds: [refund],
        updated_at: at,
      });
      if (options.deliver !== false) await this.deliver('payment.refunded', refund);
      return refund;
    },
    /** An event signed and sent to Tally as the provider sends it, whenever the test decides. */
    async deliver(eventName: string, data: unknown) {
      const status = await sendWebhook(
        { url: webhookUrl, secret: SECRETS[0] },
        { eventName, accountId: account, data },
      );
      expect(status).toBe(200);
    },
    /** `POST /dev/payouts`: pays out the account's payments not paid out yet, its webhooks sent to Tally. */
    async payOut(script: Record<string, unknown> = {}, webhooks = true) {
      const response = await request(provider.simulator.app)
        .post('/dev/payouts')
        .send({ account_id: account, ...(webhooks ? target : {}), ...script });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body as {
        payout: Record<string, unknown> & { id: string; amount: number };
        lines: { id: string; txn_type: string; source_payment_id: string | null }[];
      };
    },
    /** `POST /dev/payouts/:id/status`, its webhook sent to Tally. */
    async movePayout(id: string, status: string) {
      const response = await request(provider.simulator.app)
        .post(`/dev/payouts/${id}/status`)
        .send({ status, ...target });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.payout as Record<string, unknown>;
    },
    async payout(id: string) {
      const response = await request(t.app).get(`/api/payouts/${id}`).set(auth);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data;
    },
    /** Findings of a code through `GET /api/findings`, as a user reads them, by subject id. */
    async findings(code: string, status = 'open') {
      const response = await request(t.app)
        .get('/api/findings')
        .query({ code, status, limit: 100 })
        .set(auth);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return bySubject(
        (response.body.data as Record<string, unknown>[]).map((finding) => ({
          code: finding.code,
          severity: finding.severity,
          subject_type: finding.subject_type,
          subject_id: finding.subject_id,
          currency: finding.currency,
          at_stake: finding.at_stake,
        })),
      );
    },
    async close() {
      await closeServer(server);
      await t.close();
      await provider.close();
    },
  };
}
