import { readFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, bySubject, DAY, type Loop, startLoop, usdFinding } from './endToEndLoop.ts';

// Rule 3's window for an account whose payouts began recently: payouts are evidence from the start of the
// first full listing (PAYOUT_LOOKBACK_DAYS, 35 by default, back from the first completed payout sync) to the
// newest synced payout, not from the oldest payout Tally happens to hold.

const ACCOUNT = 'acc_payout_window';
let loop: Loop;
// The clock Tally and the simulator share, moved forward to sync again later.
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
// Around the first completed payout sync of the account: its listing started 35 days before.
const firstSync = { from: new Date(0), to: new Date(0) };

/**
 * A succeeded 10,000 ¢ Visa payment created `daysOld` days ago that the provider never paid out, as a
 * `payment.succeeded` webhook (the simulator does not know it, so no payout of its credits it).
 */
async function oldPayment(id: string, daysOld: number) {
  const created = new Date(now().getTime() - daysOld * DAY).toISOString();
  const fee = (type: string, amount: number, configuration: string) => ({
    id: `pyfee_${id.slice(3)}_${type}`,
    type,
    amount,
    remaining_amount: amount,
    currency: 'usd',
    source_configuration_id: loop.configurations[configuration],
    source_fee_type: configuration,
  });
  await loop.deliver('payment.succeeded', {
    id,
    account_id: ACCOUNT,
    amount: 10_000,
    currency: 'usd',
    status: 'succeeded',
    payment_method: { card: { id: `pm_${id}`, brand: 'visa', acct_last_four: '4242' } },
    fee_amount: 355,
    fees: [fee('processing_fee', 305, 'visa_brand_ecomm'), fee('platform_fee', 50, 'platform')],
    created_at: created,
    updated_at: created,
  });
}

const status = async () =>
  (await request(loop.t.app).get('/api/status').set(auth).expect(200)).body.data.payments_awaiting_payout;

beforeAll(async () => {
  loop = await startLoop(ACCOUNT, { now, env: { WEBHOOK_TOLERANCE_SECONDS: String(10 * 24 * 3600) } });
  // Inside the first listing's 35 days: 12 and 34 days old. Before it: 40 days old.
  await oldPayment('py_window_12_days', 12);
  await oldPayment('py_window_34_days', 34);
  await oldPayment('py_window_40_days', 40);
  // The account's first payout, made now: it pays out only a payment of today.
  await loop.pay(2000);
  await loop.payOut({ status: 'paid' });
  await loop.settleLoop();
  firstSync.from = now();
  await loop.runJob('payout-sync', { account_id: ACCOUNT });
  firstSync.to = now();
}, 60_000);
afterAll(() => loop.close());

describe('payment_not_paid_out for an account whose payouts began recently', () => {
  it('is raised by payout-scan for payments created inside the first full listing, and counted by the status', async () => {
    await loop.runJob('payout-scan');
    const notPaidOut = (id: string) => usdFinding('payment_not_paid_out', 'warning', ['payment', id], 10_000);
    expect(await loop.findings('payment_not_paid_out')).toEqual(
      bySubject([notPaidOut('py_window_12_days'), notPaidOut('py_window_34_days')]),
    );
    expect(await status()).toBe(2);
    // The daily report counts the payments awaiting payout as of when it is built: the same two.
    await loop.runJob('daily-report');
    const list = await request(loop.t.app).get('/api/reports?kind=daily').set(auth).expect(200);
    const report = await request(loop.t.app)
      .get(`/api/reports/${list.body.data[0].id}.json`)
      .set(auth)
      .expect(200);
    const row = report.body.payouts.find((payouts: { account_id: string }) => payouts.account_id === ACCOUNT);
    expect(row).toMatchObject({ awaiting_payout: 2, awaiting_payout_amount: 20_000 });
  });

  it('keeps the first listing as the start: a sync 5 days later, listing 35 days back from then, moves nothing', async () => {
    offsetMs = 5 * DAY;
    await loop.runJob('payout-sync', { account_id: ACCOUNT });
    await loop.runJob('payout-scan');
    expect((await loop.findings('payment_not_paid_out')).map((finding) => finding.subject_id)).toEqual([
      'py_window_12_days',
      'py_window_34_days',
    ]);
    expect(await status()).toBe(2);
    const { rows } = await loop.t.pool.query<{ listed_from: Date | null }>(
      `select listed_from from payout_sync_accounts where account_id = $1`,
      [ACCOUNT],
    );
    const listedFrom = Number(rows[0]?.listed_from?.getTime());
    expect(listedFrom).toBeGreaterThanOrEqual(firstSync.from.getTime() - 35 * DAY);
    expect(listedFrom).toBeLessThanOrEqual(firstSync.to.getTime() - 35 * DAY);
  });
  it('migration 0027: an account synced before the start was stored starts at its oldest payout until its next listing', async () => {
    const listedFrom = async () =>
      (
        await loop.t.pool.query<{ listed_from: Date | null; oldest: Date | null }>(
          `select s.listed_from, (select min(created_at) from payouts where account_id = s.account_id) as oldest
             from payout_sync_accounts s where s.account_id = $1`,
          [ACCOUNT],
        )
      ).rows[0];
    await loop.t.pool.query(`update payout_sync_accounts set listed_from = null`);
    const migration = await readFile(
      path.join(import.meta.dirname, '../../migrations/0027_payout_listing_start.sql'),
      'utf8',
    );
    await loop.t.pool.query(migration);
    const migrated = await listedFrom();
    expect(migrated?.oldest).toBeInstanceOf(Date);
    expect(migrated?.listed_from).toEqual(migrated?.oldest);
    const before = now();
    await loop.runJob('payout-sync', { account_id: ACCOUNT });
    const listed = Number((await listedFrom())?.listed_from?.getTime());
    expect(listed).toBeGreaterThanOrEqual(before.getTime() - 35 * DAY);
    expect(listed).toBeLessThanOrEqual(now().getTime() - 35 * DAY);
  });
});
