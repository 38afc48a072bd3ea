import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueue } from '../../src/queue/enqueue.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { waitForJobs } from '../helpers/fixtures.ts';
import {
  insertPayments,
  insertPayoutLines,
  insertPayouts,
  insertSyncedAccount,
  listAllFindings,
} from './payoutRows.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
let t: TestApp;

// A synced account whose card payment py_late, 11 days old, is in no payout; po_1 is in transit 2 days after
// its deposits_at.
beforeAll(async () => {
  t = await startTestApp({
    worker: true,
    workerJobs: ['payout-scan', 'reconcile-payouts'],
    now: () => new Date('2024-06-12T00:00:00Z'),
  });
  await insertSyncedAccount(t.pool, 'acc_1', '2024-06-10T00:00:00Z');
  await insertPayments(t.pool, [{ id: 'py_late', amount: 2500 }]);
  await insertPayouts(t.pool, [
    {
      id: 'po_1',
      amount: 0,
      status: 'in_transit',
      created_at: '2024-05-30T00:00:00Z',
      deposits_at: '2024-06-10T00:00:00Z',
    },
  ]);
});
afterAll(() => t.close());

const open = async () =>
  (await listAllFindings(t.pool))
    .filter((finding) => finding.status === 'open')
    .map((finding) => [finding.code, finding.severity, finding.subject_id]);

it('POST /api/jobs/payout-scan runs the scan: a payment awaiting payout and an overdue payout', async () => {
  expect((await request(t.app).post('/api/jobs/payout-scan').set(auth).send({})).status).toBe(202);
  await waitForJobs(t, ['payout-scan']);
  expect(await open()).toEqual([
    ['payment_not_paid_out', 'warning', 'py_late'],
    ['payout_overdue', 'warning', 'po_1'],
  ]);
});

it('a reconcile-payouts job for the payout that credits the payment resolves payment_not_paid_out', async () => {
  await insertPayouts(t.pool, [{ id: 'po_2', amount: 2500, created_at: '2024-06-11T00:00:00Z' }]);
  await insertPayoutLines(t.pool, [
    {
      id: 'bt_1',
      payout_id: 'po_2',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 2500,
      source_id: 'py_late',
    },
  ]);
  await enqueue(t.boss, 'reconcile-payouts', [{ payout_ids: ['po_2'] }]);
  await waitForJobs(t, ['reconcile-payouts']);
  expect(await open()).toEqual([['payout_overdue', 'warning', 'po_1']]);
  const { rows } = await t.pool.query(
    'select payout_id, lines_checked, lines_mismatched from payout_reconciliations',
  );
  expect(rows).toEqual([{ payout_id: 'po_2', lines_checked: 1, lines_mismatched: 0 }]);
});

it('reconcile-payouts is not a job people start by name', async () => {
  expect(
    (
      await request(t.app)
        .post('/api/jobs/reconcile-payouts')
        .set(auth)
        .send({ payout_ids: ['po_2'] })
    ).status,
  ).toBe(404);
});
