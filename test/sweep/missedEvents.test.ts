import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { runScript } from '../helpers/childProcess.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, runJobThroughApi, settle } from '../helpers/fixtures.ts';
import { dumpProjections } from '../helpers/projections.ts';
import { startSimulator } from '../helpers/simulator.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

// The missed-event sweep against the provider simulator: webhooks dropped for some payments, a newer state
// never delivered, a fee breakdown that never arrived, and a late delivery that resolves what was missed.
const ACCOUNT = 'acc_sweep';
const auth = { Authorization: `Bearer ${API_TOKEN}` };
const HOUR = 3600_000;
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;
const ids: Record<string, string> = {};
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** A card payment of 10,000 ¢ as the API shows it, with the fees the configurations give (305 + 50). */
function apiPayment(
  id: string,
  fields: { status: string; created: string; updated: string; fees?: boolean },
) {
  const fee = (type: string, amount: number, source: string) => ({
    id: `pyfee_${id.slice(3)}_${type}`,
    type,
    amount,
    remaining_amount: amount,
    currency: 'usd',
    source_configuration_id: ids[source],
    source_fee_type: source,
  });
  return {
    id,
    account_id: ACCOUNT,
    amount: 10_000,
    currency: 'usd',
    status: fields.status,
    is_test: true,
    payment_method: { card: { id: `pm_${id}`, brand: 'visa', acct_last_four: '4242' } },
    fee_amount: 355,
    ...(fields.fees === false
      ? {}
      : { fees: [fee('processing_fee', 305, 'visa_brand_ecomm'), fee('platform_fee', 50, 'platform')] }),
    created_at: fields.created,
    updated_at: fields.updated,
  };
}

const webhook = (name: string, data: object) =>
  JSON.stringify(paymentEvent({ account_id: ACCOUNT, event_name: name, data }));

async function runJob(name: string, payload: object = {}) {
  await runJobThroughApi(t, auth, name, payload);
  await settle(t);
}

const openMissed = async () =>
  (
    await t.pool.query(
      `select subject_type, subject_id, severity, expected, actual, details->>'missing' as missing
         from findings where code = 'event_missed' and status = 'open' order by subject_id`,
    )
  ).rows;

beforeAll(async () => {
  provider = await startSimulator();
  for (const [feeType, rate, flat] of [
    ['processing_ecomm', 2.9, 30],
    ['visa_brand_ecomm', 2.75, 30],
    ['platform', 0.5, 0],
  ] as const) {
    const created = provider.simulator.store.create(ACCOUNT, feeType, {
      variable_rate: rate,
      transaction_fee_cents: flat,
      fee_cap_cents: null,
      effective_start: ago(30 * 24 * HOUR),
    });
    ids[feeType] = created.id;
  }
  for (const type of ['processing_card_present', 'processing_ach', 'processing_ach_expedited'])
    provider.simulator.store.create(ACCOUNT, type, {
      variable_rate: 1,
      transaction_fee_cents: 0,
      fee_cap_cents: null,
      effective_start: ago(30 * 24 * HOUR),
    });
  t = await startTestApp({
    worker: true,
    env: { ...provider.env, PROVIDER_SUB_ACCOUNTS: ACCOUNT, SWEEP_GRACE_MINUTES: '30' },
  });
  const delivered = apiPayment('py_sweep_delivered', {
    status: 'succeeded',
    created: ago(3 * HOUR),
    updated: ago(3 * HOUR),
  });
  const pending = apiPayment('py_sweep_newer', {
    status: 'pending',
    created: ago(3 * HOUR),
    updated: ago(3 * HOUR),
  });
  const noFees = apiPayment('py_sweep_nofees', {
    status: 'succeeded',
    created: ago(2 * HOUR),
    updated: ago(2 * HOUR),
    fees: false,
  });
  await deliver(t.app, [
    webhook('payment.succeeded', delivered),
    webhook('payment.created', pending),
    webhook('payment.succeeded', noFees),
  ]);
  // What the API shows: the delivered ones, a newer state of one, the breakdown that never came by
  // webhook, a payment whose webhooks were all dropped (with a wrong fee), one too recent to be missed,
  // and a forwarding request never delivered.
  provider.simulator.putPayment(delivered);
  provider.simulator.putPayment({ ...pending, status: 'succeeded', updated_at: ago(2 * HOUR) });
  provider.simulator.putPayment(
    apiPayment('py_sweep_nofees', {
      status: 'succeeded',
      created: noFees.created_at,
      updated: noFees.updated_at,
    }),
  );
  const dropped = apiPayment('py_sweep_dropped', {
    status: 'succeeded',
    created: ago(5 * HOUR),
    updated: ago(5 * HOUR),
  });
  provider.simulator.putPayment({
    ...dropped,
    fees: [{ ...dropped.fees?.[0], amount: 400, remaining_amount: 400 }, dropped.fees?.[1]],
    fee_amount: 450,
  });
  provider.simulator.putPayment(
    apiPayment('py_sweep_recent', {
      status: 'succeeded',
      created: ago(5 * 60_000),
      updated: ago(5 * 60_000),
    }),
  );
  provider.simulator.putForwardingRequest({
    id: 'fwd_sweep_dropped',
    account_id: ACCOUNT,
    payment_method_id: 'pm_py_sweep_delivered',
    url: 'https://vault.example.com/charge',
    status: 'completed',
    response: { status_code: 200 },
    created_at: ago(4 * HOUR),
    updated_at: ago(4 * HOUR),
  });
  await settle(t);
  await runJob('fee-configuration-sync');
  // The provider fails twice mid-sweep: the client retries with back-off and the sweep completes.
  provider.simulator.failNext(2, 503);
  await runJob('missed-event-sweep');
}, 120_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('missed-event sweep', () => {
  it('stores what never arrived as api snapshots and projects every payment', async () => {
    const { rows } = await t.pool.query(
      `select id, status, fees_updated_at <> '-infinity' as has_fees, delivered_updated_at is not null as delivered
         from payments order by id`,
    );
    expect(rows).toEqual([
      { id: 'py_sweep_delivered', status: 'succeeded', has_fees: true, delivered: true },
      { id: 'py_sweep_dropped', status: 'succeeded', has_fees: true, delivered: false },
      { id: 'py_sweep_newer', status: 'succeeded', has_fees: true, delivered: true },
      { id: 'py_sweep_nofees', status: 'succeeded', has_fees: true, delivered: true },
      { id: 'py_sweep_recent', status: 'succeeded', has_fees: true, delivered: false },
    ]);
    const sources = await t.pool.query(
      `select source, count(*)::int as n, count(*) filter (where status = 'processed')::int as processed
         from events group by source order by source`,
    );
    expect(sources.rows).toEqual([
      { source: 'api', n: 5, processed: 5 },
      { source: 'webhook', n: 3, processed: 3 },
    ]);
    const snapshot = await t.pool.query(
      `select event_id from events where source = 'api' order by id limit 1`,
    );
    const shown = await request(t.app).get(`/api/events/${snapshot.rows[0].event_id}`).set(auth);
    expect(shown.body.data).toMatchObject({ source: 'api', status: 'processed' });
    const forwarding = await t.pool.query(`select id, status from forwarding_requests`);
    expect(forwarding.rows).toEqual([{ id: 'fwd_sweep_dropped', status: 'completed' }]);
  });

  it('opens event_missed for exactly the missed states, and a missed payment is reconciled like any other', async () => {
    expect(await openMissed()).toEqual([
      expect.objectContaining({
        subject_type: 'forwarding_request',
        subject_id: 'fwd_sweep_dropped',
        missing: 'object',
        severity: 'error',
        actual: null,
      }),
      expect.objectContaining({
        subject_type: 'payment',
        subject_id: 'py_sweep_dropped',
        missing: 'object',
        severity: 'error',
        actual: null,
      }),
      expect.objectContaining({
        subject_type: 'payment',
        subject_id: 'py_sweep_newer',
        missing: 'newer_state',
        severity: 'error',
      }),
    ]);
    const mismatch = await t.pool.query(
      `select subject_id, expected, actual from findings where code = 'fee_amount_mismatch' and status = 'open'`,
    );
    expect(mismatch.rows).toEqual([
      { subject_id: 'pyfee_sweep_dropped_processing_fee', expected: 305, actual: 400 },
    ]);
    const status = await request(t.app).get('/api/status').set(auth);
    expect(status.body.data).toMatchObject({ missed_events_open: 3, last_sweep_at: expect.any(String) });
    const metrics = await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(metrics.text).toContain('tally_sweep_objects_total{outcome="missed"} 3');
  });

  it('a second sweep stores nothing twice and fetches a missing fee breakdown only once', async () => {
    const before = await t.pool.query(`select count(*)::int as n from events`);
    const fetchesBefore = provider.simulator.requests.filter(
      (path) => path === 'GET /v1/payments/py_sweep_nofees',
    );
    expect(fetchesBefore).toHaveLength(1);
    await runJob('missed-event-sweep', { account_id: ACCOUNT });
    expect((await t.pool.query(`select count(*)::int as n from events`)).rows).toEqual(before.rows);
    expect(
      provider.simulator.requests.filter((path) => path === 'GET /v1/payments/py_sweep_nofees'),
    ).toHaveLength(1);
    expect(await openMissed()).toHaveLength(3);
  });

  it('a late webhook delivery bringing the missed state resolves its event_missed', async () => {
    const late = apiPayment('py_sweep_newer', { status: 'succeeded', created: ago(3 * HOUR), updated: '' });
    const { rows } = await t.pool.query(
      `select details->>'api_updated_at' as at from findings where subject_id = 'py_sweep_newer'`,
    );
    await deliver(t.app, [webhook('payment.succeeded', { ...late, updated_at: rows[0].at })]);
    await settle(t);
    expect((await openMissed()).map((row) => row.subject_id)).toEqual([
      'fwd_sweep_dropped',
      'py_sweep_dropped',
    ]);
  });

  it('a rebuild from the raw log gives the same projections, api snapshots included', async () => {
    const before = await dumpProjections(t.pool, { withRowIds: true });
    const result = await tallyInProcess(['reprocess', '--all'], { DATABASE_URL: t.databaseUrl });
    expect(result.stdout).toMatch(/^reprocessed 9 deliveries, 0 failed\n$/);
    expect(await dumpProjections(t.pool, { withRowIds: true })).toEqual(before);
  });

  it('tally backfill imports history through the same code and never raises event_missed', async () => {
    provider.simulator.putPayment({
      ...apiPayment('py_sweep_history', {
        status: 'succeeded',
        created: ago(20 * 24 * HOUR),
        updated: ago(20 * 24 * HOUR),
      }),
    });
    const since = ago(30 * 24 * HOUR).slice(0, 10);
    const env = { ...provider.env, DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'warn' };
    const result = await runScript(
      ['src/cli/main.ts', 'backfill', '--since', since, '--account', ACCOUNT],
      env,
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('listed 7, new 1, newer 0, unchanged 6\n');
    expect(result.code).toBe(0);
    await settle(t);
    expect((await t.pool.query(`select id from payments where id = 'py_sweep_history'`)).rows).toHaveLength(
      1,
    );
    expect((await openMissed()).map((row) => row.subject_id)).not.toContain('py_sweep_history');
    const bad = await tallyInProcess(['backfill', '--since', 'yesterday'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since must be a day, YYYY-MM-DD');
    const badAccount = await tallyInProcess(
      ['backfill', '--since', since, '--account', 'acc\r\nX-Injected: 1'],
      env,
    );
    expect(badAccount.code).toBe(2);
    expect(badAccount.stderr).toContain('--account must be a sub account id');
  });

  it('an object the API returns that fails validation is stored and fails in the worker, naming the field', async () => {
    const { currency: _currency, ...withoutCurrency } = apiPayment('py_sweep_invalid', {
      status: 'succeeded',
      created: ago(HOUR),
      updated: ago(HOUR),
    });
    provider.simulator.putPayment(withoutCurrency);
    // Not settled: the failed delivery's job is retried with back-off, as any bad delivery's.
    expect((await request(t.app).post('/api/jobs/missed-event-sweep').set(auth).send({})).status).toBe(202);
    const rows = await waitFor('the invalid snapshot to fail in the worker', async () => {
      const { rows: stored } = await t.pool.query(
        `select status, error from events where source = 'api' and convert_from(raw_body, 'utf8')::jsonb->'data'->>'id' = 'py_sweep_invalid'`,
      );
      until(stored[0]?.status === 'failed', JSON.stringify(stored));
      return stored;
    });
    expect(rows).toEqual([{ status: 'failed', error: 'invalid data: currency: missing' }]);
  });
});
