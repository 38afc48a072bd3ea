import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { type PayoutSyncClient, syncAccountPayouts } from '../../src/payouts/syncPayouts.ts';
import { createProviderClient, ProviderError } from '../../src/provider/client.ts';
import { readApiObject, snapshotOf } from '../../src/sweep/compareSnapshot.ts';
import { insertApiSnapshots } from '../../src/sweep/queries.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain, settle, waitForJobs } from '../helpers/fixtures.ts';
import { dumpProjections } from '../helpers/projections.ts';
import { PROVIDER_CLIENT, startSimulator } from '../helpers/simulator.ts';

// The payout sync when things go wrong: a provider failing mid-way (the next run goes on and stores nothing
// twice), lines naming payments Tally lacks (fetched once), a txn_type nobody documented, snapshots arriving
// late or in any order; and a rebuild from the raw log that gives the same payouts and lines.

const RESUME = 'acc_payout_resume';
const FETCH = 'acc_payout_fetch';
const DAY = 24 * 3600_000;
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const since = () => new Date(Date.now() - 35 * DAY);

const providerClient = () =>
  createProviderClient({
    baseUrl: provider.baseUrl,
    clientId: PROVIDER_CLIENT.id,
    clientSecret: PROVIDER_CLIENT.secret,
    log: createLogger('silent'),
    maxAttempts: 2,
    baseDelayMs: 1,
    sleep: async () => {},
  });
const context = (client: PayoutSyncClient) => ({ pool: t.pool, client, log: t.log, now: () => new Date() });

/** A client whose provider fails (twice, so beyond its retries) once `pagesBeforeFailure` line pages are in. */
function failingMidLines(pagesBeforeFailure: number): PayoutSyncClient {
  const client = providerClient();
  return {
    ...client,
    async *balanceTransactionPages(payoutId, subAccount) {
      let pages = 0;
      for await (const page of client.balanceTransactionPages(payoutId, subAccount)) {
        yield page;
        pages += 1;
        if (pages === pagesBeforeFailure) provider.simulator.failNext(2, 503);
      }
    },
  };
}

const countEvents = async (eventName: string, account: string) =>
  (
    await t.pool.query(
      `select count(*)::int as n, count(distinct event_id)::int as ids from events
        where event_name = $1 and account_id = $2`,
      [eventName, account],
    )
  ).rows[0];

const payoutRow = async (id: string) =>
  (
    await t.pool.query(
      `select status, amount::int, updated_at, line_count, lines_complete from payouts where id = $1`,
      [id],
    )
  ).rows[0];

/** The statuses of a payout's `api` snapshots in the raw log, in the order they were stored. */
const apiSnapshotStatuses = async (payoutId: string) =>
  (
    await t.pool.query(
      `select convert_from(raw_body, 'utf8')::jsonb #>> '{data,status}' as status from events
        where event_name = 'payout.api_snapshot'
          and convert_from(raw_body, 'utf8')::jsonb #>> '{data,id}' = $1 order by id`,
      [payoutId],
    )
  ).rows.map((row) => row.status);

function payout(id: string, account: string, fields: Record<string, unknown> = {}) {
  const at = ago(DAY);
  return {
    id,
    account_id: account,
    amount: 5000,
    currency: 'usd',
    status: 'paid',
    created_at: at,
    updated_at: at,
    ...fields,
  };
}

beforeAll(async () => {
  provider = await startSimulator();
  t = await startTestApp({ worker: true, env: { ...provider.env, PROVIDER_SUB_ACCOUNTS: RESUME } });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('a sync stopped by the provider mid-way', () => {
  const lines = Array.from({ length: 250 }, (_, index) => ({
    id: `bt_resume_${String(index).padStart(3, '0')}`,
    account_id: RESUME,
    payout_id: 'po_resume',
    amount: index === 0 ? -42 : 20,
    currency: 'usd',
    txn_type: index === 0 ? 'mystery_adjustment' : 'seller_payment',
    created_at: ago(2 * DAY),
    updated_at: ago(2 * DAY),
  }));

  beforeAll(() => {
    provider.simulator.putPayout(payout('po_resume', RESUME, { amount: 4938 }), lines);
  });

  it('keeps the pages it stored, stores no line count, and leaves the payout to be fetched again', async () => {
    await expect(syncAccountPayouts(context(failingMidLines(1)), RESUME, since())).rejects.toBeInstanceOf(
      ProviderError,
    );
    expect(await countEvents('payout.api_snapshot', RESUME)).toEqual({ n: 1, ids: 1 });
    expect(await countEvents('balance_transaction.api_snapshot', RESUME)).toEqual({ n: 100, ids: 100 });
    expect(await countEvents('payout.lines_counted', RESUME)).toEqual({ n: 0, ids: 0 });
    await drain(t);
    expect(await payoutRow('po_resume')).toMatchObject({ line_count: null, lines_complete: false });
  });

  it('goes on where it stopped on the next run (through a 429), storing nothing twice', async () => {
    provider.simulator.failNext(1, 429, 'gateway_rate_limit_error');
    const counts = await syncAccountPayouts(context(providerClient()), RESUME, since());
    expect(counts).toEqual({
      listed: 1,
      withoutId: 0,
      unchanged: 0,
      synced: 1,
      lines: 250,
      paymentsFetched: 0,
      paymentsNotFound: 0,
    });
    expect(await countEvents('payout.api_snapshot', RESUME)).toEqual({ n: 1, ids: 1 });
    expect(await countEvents('balance_transaction.api_snapshot', RESUME)).toEqual({ n: 250, ids: 250 });
    expect(await countEvents('payout.lines_counted', RESUME)).toEqual({ n: 1, ids: 1 });
    await drain(t);
    expect(await payoutRow('po_resume')).toMatchObject({
      status: 'paid',
      amount: 4938,
      line_count: 250,
      lines_complete: true,
    });
  });

  it('keeps an unknown txn_type as `other` with its sign as given, and counts it', async () => {
    const { rows } = await t.pool.query(
      `select kind, amount::int, fee::int, net::int from payout_lines where id = 'bt_resume_000'`,
    );
    expect(rows).toEqual([{ kind: 'other', amount: -42, fee: 0, net: -42 }]);
    const unknown = await t.pool.query(
      `select value, deliveries::int from unknown_values where field = 'balance_transaction.txn_type'`,
    );
    expect(unknown.rows).toEqual([{ value: 'mystery_adjustment', deliveries: 1 }]);
  });
});

describe('lines naming payments Tally does not have', () => {
  let dropped: string;
  let payoutId: string;

  beforeAll(async () => {
    provider.simulator.store.create(FETCH, 'processing_ecomm', {
      variable_rate: 2.9,
      transaction_fee_cents: 30,
      fee_cap_cents: null,
      effective_start: ago(30 * DAY),
    });
    const sent = (await provider.simulator.sendPayment({
      account_id: FETCH,
      amount: 5000,
      drop_webhooks: true,
    })) as {
      payment: { id: string };
    };
    dropped = sent.payment.id;
    const response = await request(provider.simulator.app)
      .post('/dev/payouts')
      .send({ account_id: FETCH, status: 'in_transit', unknown_payment_line: true });
    expect(response.status).toBe(200);
    payoutId = response.body.payout.id;
  });

  it('fetches each once with get-payment, stores the one found, and records the one the provider does not know', async () => {
    const counts = await syncAccountPayouts(context(providerClient()), FETCH, since());
    expect(counts).toMatchObject({ synced: 1, paymentsFetched: 1, paymentsNotFound: 1 });
    const { rows } = await t.pool.query(
      `select payment_id like 'py_unknown%' as unknown, payment_id = $1 as dropped, payout_id, found
         from payout_payment_fetches where account_id = $2 order by found`,
      [dropped, FETCH],
    );
    expect(rows).toEqual([
      { unknown: true, dropped: false, payout_id: payoutId, found: false },
      { unknown: false, dropped: true, payout_id: payoutId, found: true },
    ]);
    await settle(t);
    const payment = await t.pool.query(`select amount::int, status from payments where id = $1`, [dropped]);
    expect(payment.rows).toEqual([{ amount: 5000, status: 'succeeded' }]);
  });

  it('never fetches them again, even when the changed payout has its lines fetched again', async () => {
    const changed = await request(provider.simulator.app)
      .post(`/dev/payouts/${payoutId}/status`)
      .send({ status: 'paid' });
    expect(changed.status).toBe(200);
    const counts = await syncAccountPayouts(context(providerClient()), FETCH, since());
    expect(counts).toMatchObject({ synced: 1, paymentsFetched: 0, paymentsNotFound: 0 });
    const fetches = provider.simulator.requests.filter((line) => line.startsWith('GET /v1/payments/'));
    expect(fetches).toHaveLength(2);
    await drain(t);
    expect(await payoutRow(payoutId)).toMatchObject({ status: 'paid', line_count: 4, lines_complete: true });
  });
});

describe('snapshots arriving late or in any order', () => {
  const webhook = (eventName: string, data: object) =>
    JSON.stringify(paymentEvent({ account_id: RESUME, event_name: eventName, data }));

  it('never takes a paid payout back to in_transit, by webhook or by a sync of an older state', async () => {
    const paidAt = ago(2 * 3600_000);
    const paid = payout('po_late', RESUME, { status: 'paid', updated_at: paidAt });
    const inTransit = payout('po_late', RESUME, { status: 'in_transit' });
    provider.simulator.putPayout(paid, []);
    await deliver(t.app, [webhook('payout.paid', paid)]);
    await drain(t);
    await deliver(t.app, [webhook('payout.created', inTransit)]);
    await drain(t);
    // The payout.paid delivery had its lines fetched, which stored the paid state from the API too.
    await waitForJobs(t, ['payout-sync']);
    await drain(t);
    expect(await payoutRow('po_late')).toMatchObject({ status: 'paid', updated_at: new Date(paidAt) });
    expect(await apiSnapshotStatuses('po_late')).toEqual(['paid']);
    // The API showing an older state (a stale replica) stores it, and the projection keeps the newer one.
    provider.simulator.putPayout(inTransit);
    await syncAccountPayouts(context(providerClient()), RESUME, since());
    await waitForJobs(t, ['payout-sync']);
    await drain(t);
    expect(await apiSnapshotStatuses('po_late')).toEqual(['paid', 'in_transit']);
    expect(await payoutRow('po_late')).toMatchObject({ status: 'paid', updated_at: new Date(paidAt) });
  });

  it('marks the lines complete whichever of the line count, the lines and the payout comes first', async () => {
    const store = (resource: 'payouts' | 'balance_transactions' | 'payout_line_counts', raw: object) =>
      insertApiSnapshots(t.pool, [
        snapshotOf(
          resource,
          resource === 'payout_line_counts'
            ? { raw, id: 'po_order_lines_2', createdAt: null, updatedAt: null }
            : readApiObject(raw),
          { accountId: RESUME, accountType: 'test', fetchedAt: new Date() },
        ),
      ]);
    const line = (id: string) => ({
      id,
      payout_id: 'po_order',
      amount: 10,
      currency: 'usd',
      txn_type: 'seller_payment',
    });
    await store('payout_line_counts', { payout_id: 'po_order', line_count: 2 });
    await drain(t);
    await store('balance_transactions', line('bt_order_1'));
    await drain(t);
    expect(await payoutRow('po_order')).toBeUndefined();
    await store('payouts', payout('po_order', RESUME, { amount: 20 }));
    await drain(t);
    expect(await payoutRow('po_order')).toMatchObject({ line_count: 2, lines_complete: false });
    await store('balance_transactions', line('bt_order_2'));
    await drain(t);
    expect(await payoutRow('po_order')).toMatchObject({ line_count: 2, lines_complete: true });
  });
});

describe('tally reprocess --all', () => {
  it('rebuilds the same payouts, lines, line counts and unknown values from the raw log', async () => {
    await waitForJobs(t, ['payout-sync']);
    await settle(t);
    const before = await dumpProjections(t.pool, { withRowIds: true });
    expect(before.payouts?.length).toBe(4);
    expect(before.payout_lines?.length).toBe(256);
    const syncJobs = (await t.boss.findJobs('payout-sync')).length;
    const result = await tallyInProcess(['reprocess', '--all'], { DATABASE_URL: t.databaseUrl });
    expect(result.code, result.stderr).toBe(0);
    await waitForJobs(t, ['payout-sync']);
    await settle(t);
    expect(await dumpProjections(t.pool, { withRowIds: true })).toEqual(before);
    // Replayed payout deliveries send no sync: their lines were stored already.
    expect((await t.boss.findJobs('payout-sync')).length).toBe(syncJobs);
  });
});
