import { readFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedConfiguration } from '../../simulator/feeConfigurationStore.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { deliver, drain, runJobThroughApi, settle, waitForJobs } from '../helpers/fixtures.ts';
import { pricedPaymentBody } from '../helpers/pricedPayments.ts';
import { startSimulator } from '../helpers/simulator.ts';

// A visa payment priced by the visa brand configuration after that configuration was retired: the seed's
// selection rules fall back to the base card configuration, so that is what the fee is measured against.
const ACCOUNT = 'acc_retired_brand';
const START = '2026-10-01T00:00:00.000Z';
const RETIRED = '2026-10-20T00:00:00.000Z';
const CREATED = '2026-11-01T12:00:00.000Z';
const auth = { Authorization: `Bearer ${API_TOKEN}` };

let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;
const configs: Record<string, SimulatedConfiguration> = {};

beforeAll(async () => {
  provider = await startSimulator();
  configs.processing_ecomm = provider.simulator.store.create(ACCOUNT, 'processing_ecomm', {
    variable_rate: 2.9,
    transaction_fee_cents: 30,
    effective_start: START,
  });
  // The provider refuses an end in the past, so the brand is created open-ended and then ended, as if
  // it had been retired on RETIRED.
  configs.visa_brand_ecomm = provider.simulator.store.create(ACCOUNT, 'visa_brand_ecomm', {
    variable_rate: 2.75,
    transaction_fee_cents: 30,
    effective_start: START,
    effective_end: '2099-01-01T00:00:00.000Z',
  });
  provider.simulator.rewrite(configs.visa_brand_ecomm.id, { effective_end: RETIRED });
  t = await startTestApp({ worker: true, env: provider.env });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('a fee priced by a retired brand configuration', () => {
  it('puts at stake the difference from the base configuration the selection rules pick', async () => {
    // 10,000 ¢ by visa online: the retired visa brand gives 2.75 % + 30 = 305 ¢, the base in effect at
    // creation 2.9 % + 30 = 320 ¢.
    const fees = [
      { id: 'pyfee_retired_proc', type: 'processing_fee', amount: 305, source: 'visa_brand_ecomm' },
    ];
    await deliver(t.app, [
      pricedPaymentBody(configs, {
        accountId: ACCOUNT,
        id: 'py_retired',
        amount: 10_000,
        createdAt: CREATED,
        fees,
      }),
    ]);
    await drain(t);
    await runJobThroughApi(t, auth, 'fee-configuration-sync');
    await settle(t);
    const response = await request(t.app)
      .get('/api/findings?status=open&subject_id=pyfee_retired_proc')
      .set(auth)
      .expect(200);
    const found = (response.body.data as Record<string, unknown>[])
      .map(({ code, severity, expected, actual, at_stake }) => ({
        code,
        severity,
        expected,
        actual,
        at_stake,
      }))
      .sort((a, b) => String(a.code).localeCompare(String(b.code)));
    expect(found).toEqual([
      {
        code: 'fee_configuration_not_applicable',
        severity: 'error',
        expected: 'processing_ecomm',
        actual: 'visa_brand_ecomm',
        at_stake: 15,
      },
      {
        code: 'fee_configuration_not_effective',
        severity: 'error',
        expected: { effective_start: START, effective_end: RETIRED },
        actual: CREATED,
        at_stake: 15,
      },
    ]);
  });
  it('migration 0027: a finding left without at_stake gets it from its payment reconciled again by reconcile-stale', async () => {
    const stakes = async () =>
      (
        await t.pool.query(
          `select code, at_stake::int as at_stake from findings
            where subject_id = 'pyfee_retired_proc' and status = 'open' order by code`,
        )
      ).rows;
    await t.pool.query(
      `update findings set at_stake = null
        where subject_id = 'pyfee_retired_proc' and code = 'fee_configuration_not_effective'`,
    );
    const migration = await readFile(
      path.join(import.meta.dirname, '../../migrations/0027_payout_listing_start.sql'),
      'utf8',
    );
    await t.pool.query(migration);
    await runJobThroughApi(t, auth, 'reconcile-stale');
    await waitForJobs(t, ['reconcile-payments']);
    expect(await stakes()).toEqual([
      { code: 'fee_configuration_not_applicable', at_stake: 15 },
      { code: 'fee_configuration_not_effective', at_stake: 15 },
    ]);
  });
});
