import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgePayoutTimeliness } from '../../src/payouts/judgePayoutTimeliness.ts';
import {
  judgePayouts,
  type PayoutSettings,
  readPayoutFacts,
  reconcilePayouts,
  recordPayoutJudgements,
} from '../../src/payouts/reconcilePayouts.ts';
import { queues } from '../../src/queue/queues.ts';
import { createTestDatabase } from '../helpers/database.ts';
import {
  insertPaymentFees,
  insertPayments,
  insertPayoutLines,
  insertPayouts,
  insertRefunds,
  insertReturnedFees,
  insertSyncedAccount,
  listAllFindings,
} from './payoutRows.ts';

const NOW = new Date('2024-06-12T00:00:00Z');
const SETTINGS: PayoutSettings = { PAYOUT_EXPECTED_DAYS: { cc: 3, ach: 5 }, PAYOUT_OVERDUE_HOURS: 24 };
const payment = (id: string) => ({ source_id: id, source_type: 'payment', source_payment_id: id });

// po_1 (paid): py_1 with its processing fee, a refund and the fee it returned; py_2, an ACH payment returned
// later, its fee handed back with no refund object; a credit of py_9 (unknown to Tally); a platform fee py_1
// was never charged; and a stated amount 10 over its lines. po_2 (in transit, deposits_at 3 days ago) credits
// py_1 again, its fee deducted on the line. po_3 failed, its lines not all loaded. py_4 is in no payout.
async function seed(pool: pg.Pool) {
  await insertSyncedAccount(pool, 'acc_1', '2024-06-10T00:00:00Z');
  await insertPayments(pool, [
    { id: 'py_1', amount: 10000, fee_amount: 320, amount_refunded: 2000, status: 'partially_refunded' },
    { id: 'py_2', amount: 5000, method_kind: 'ach', status: 'failed', returned: true, amount_returned: 5000 },
    { id: 'py_4', amount: 3000, created_at: '2024-06-05T00:00:00Z' },
    { id: 'py_old', amount: 4000, created_at: '2024-05-01T00:00:00Z' },
    { id: 'py_new', amount: 6000, created_at: '2024-06-10T12:00:00Z' },
  ]);
  await insertPaymentFees(pool, [
    { id: 'pyfee_1', payment_id: 'py_1', amount: 320, remaining_amount: 270 },
    { id: 'pyfee_2', payment_id: 'py_2', amount: 150, remaining_amount: 0 },
  ]);
  await insertRefunds(pool, [{ id: 're_1', payment_id: 'py_1', amount: 2000 }]);
  await insertReturnedFees(pool, [
    {
      id: 'rtfee_1',
      refund_id: 're_1',
      payment_fee_id: 'pyfee_1',
      returned_amount: 50,
      original_amount: 320,
    },
  ]);
  await insertPayouts(pool, [
    {
      id: 'po_1',
      amount: 13400,
      payments_total: 15700,
      payments_count: 3,
      refunds_total: 2000,
      refunds_count: 1,
      fees_total: 310,
      other_total: 0,
      created_at: '2024-06-03T00:00:00Z',
      deposits_at: '2024-06-04T00:00:00Z',
      line_count: 10,
    },
    {
      id: 'po_2',
      amount: 9680,
      status: 'in_transit',
      created_at: '2024-06-06T00:00:00Z',
      deposits_at: '2024-06-09T00:00:00Z',
    },
    { id: 'po_3', amount: 999, status: 'failed', lines_complete: false, created_at: '2024-06-07T00:00:00Z' },
  ]);
  await insertPayoutLines(pool, [
    {
      id: 'bt_1',
      payout_id: 'po_1',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 10000,
      ...payment('py_1'),
    },
    {
      id: 'bt_2',
      payout_id: 'po_1',
      txn_type: 'processing_fee',
      kind: 'fee',
      amount: -320,
      source_payment_id: 'py_1',
    },
    {
      id: 'bt_3',
      payout_id: 'po_1',
      txn_type: 'seller_payment_refund',
      kind: 'refund',
      amount: -2000,
      source_id: 're_1',
      source_type: 'refund',
    },
    {
      id: 'bt_4',
      payout_id: 'po_1',
      txn_type: 'processing_fee_return',
      kind: 'fee_return',
      amount: 50,
      source_id: 're_1',
      source_payment_id: 'py_1',
    },
    {
      id: 'bt_5',
      payout_id: 'po_1',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 5000,
      ...payment('py_2'),
    },
    {
      id: 'bt_6',
      payout_id: 'po_1',
      txn_type: 'processing_fee',
      kind: 'fee',
      amount: -150,
      source_payment_id: 'py_2',
    },
    {
      id: 'bt_7',
      payout_id: 'po_1',
      txn_type: 'processing_fee_return',
      kind: 'fee_return',
      amount: 150,
      source_payment_id: 'py_2',
    },
    {
      id: 'bt_8',
      payout_id: 'po_1',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 700,
      ...payment('py_9'),
    },
    {
      id: 'bt_9',
      payout_id: 'po_1',
      txn_type: 'platform_fee',
      kind: 'fee',
      amount: -40,
      source_payment_id: 'py_1',
    },
    { id: 'bt_10', payout_id: 'po_1', txn_type: 'payout', kind: 'payout', amount: -13390, source_id: 'po_1' },
    {
      id: 'bt_20',
      payout_id: 'po_2',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 10000,
      fee: 320,
      ...payment('py_1'),
    },
    {
      id: 'bt_30',
      payout_id: 'po_3',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 999,
      ...payment('py_5'),
    },
  ]);
}

let pool: pg.Pool;
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  await seed(pool);
});
afterAll(() => pool.end());

const openFindings = async () =>
  (await listAllFindings(pool)).filter((finding) => finding.status !== 'resolved');
const summary = (findings: Awaited<ReturnType<typeof listAllFindings>>) =>
  findings.map(({ code, severity, subject_type, subject_id, status }) => [
    code,
    severity,
    subject_type,
    subject_id,
    status,
  ]);
const atStakeByCode = (findings: Awaited<ReturnType<typeof listAllFindings>>) =>
  Object.fromEntries(findings.map((finding) => [finding.code, finding.at_stake]));

describe('reconcilePayouts', () => {
  it('judges every payout with its lines loaded by rules 1-4, and a payout still loading by rule 4 only', async () => {
    expect(await reconcilePayouts(pool, ['po_1', 'po_2', 'po_3', 'po_missing'], NOW, SETTINGS)).toEqual({
      judged: ['po_1', 'po_2'],
      unjudged: ['po_3'],
      overtaken: [],
    });
    const findings = await listAllFindings(pool);
    expect(summary(findings)).toEqual([
      ['payment_paid_out_twice', 'error', 'payment', 'py_1', 'open'],
      ['payout_failed', 'error', 'payout', 'po_3', 'open'],
      ['payout_line_mismatch', 'error', 'balance_transaction', 'bt_9', 'open'],
      ['payout_overdue', 'warning', 'payout', 'po_2', 'open'],
      ['payout_payment_unknown', 'error', 'balance_transaction', 'bt_8', 'open'],
      ['payout_total_mismatch', 'error', 'payout', 'po_1', 'open'],
    ]);
    expect(atStakeByCode(findings)).toEqual({
      payment_paid_out_twice: 10000,
      payout_failed: 999,
      payout_line_mismatch: 40,
      payout_overdue: 9680,
      payout_payment_unknown: 700,
      payout_total_mismatch: 10,
    });
    const byCode = new Map(findings.map((finding) => [finding.code, finding]));
    expect(byCode.get('payment_paid_out_twice')).toMatchObject({
      account_id: 'acc_1',
      currency: 'usd',
      expected: 10000,
      actual: 20000,
      details: { payouts: ['po_1', 'po_2'], lines: ['bt_1', 'bt_20'] },
    });
    expect(byCode.get('payout_failed')).toMatchObject({
      expected: 'paid',
      actual: 'failed',
      details: { amount: 999 },
    });
    expect(byCode.get('payout_line_mismatch')).toMatchObject({
      expected: 0,
      actual: -40,
      details: {
        payout_id: 'po_1',
        kind: 'fee',
        txn_type: 'platform_fee',
        object_type: 'payment',
        object_id: 'py_1',
      },
    });
    expect(byCode.get('payout_overdue')).toMatchObject({
      expected: 'paid',
      actual: 'in_transit',
      details: { amount: 9680, overdue_since: '2024-06-10T00:00:00.000Z' },
    });
    expect(byCode.get('payout_payment_unknown')).toMatchObject({
      expected: null,
      actual: 700,
      details: { payout_id: 'po_1', payment_id: 'py_9' },
    });
    expect(byCode.get('payout_total_mismatch')).toMatchObject({
      account_id: 'acc_1',
      currency: 'usd',
      expected: { amount: 13400 },
      actual: { amount: 13390 },
    });
  });

  it('records each line check with the Tally object it matched, and each judged payout', async () => {
    const { rows: checks } = await pool.query(
      `select line_id, payout_id, matched_type, matched_id, status, expected, actual from payout_line_checks
        order by payout_id, length(line_id), line_id`,
    );
    expect(checks).toEqual([
      {
        line_id: 'bt_1',
        payout_id: 'po_1',
        matched_type: 'payment',
        matched_id: 'py_1',
        status: 'ok',
        expected: 10000,
        actual: 10000,
      },
      {
        line_id: 'bt_2',
        payout_id: 'po_1',
        matched_type: 'payment_fee',
        matched_id: 'pyfee_1',
        status: 'ok',
        expected: -320,
        actual: -320,
      },
      {
        line_id: 'bt_3',
        payout_id: 'po_1',
        matched_type: 'refund',
        matched_id: 're_1',
        status: 'ok',
        expected: -2000,
        actual: -2000,
      },
      {
        line_id: 'bt_4',
        payout_id: 'po_1',
        matched_type: 'returned_fee',
        matched_id: 'rtfee_1',
        status: 'ok',
        expected: 50,
        actual: 50,
      },
      {
        line_id: 'bt_5',
        payout_id: 'po_1',
        matched_type: 'payment',
        matched_id: 'py_2',
        status: 'ok',
        expected: 5000,
        actual: 5000,
      },
      {
        line_id: 'bt_6',
        payout_id: 'po_1',
        matched_type: 'payment_fee',
        matched_id: 'pyfee_2',
        status: 'ok',
        expected: -150,
        actual: -150,
      },
      {
        line_id: 'bt_7',
        payout_id: 'po_1',
        matched_type: 'payment_fee',
        matched_id: 'pyfee_2',
        status: 'ok',
        expected: 150,
        actual: 150,
      },
      {
        line_id: 'bt_8',
        payout_id: 'po_1',
        matched_type: null,
        matched_id: null,
        status: 'payment_unknown',
        expected: null,
        actual: 700,
      },
      {
        line_id: 'bt_9',
        payout_id: 'po_1',
        matched_type: 'payment',
        matched_id: 'py_1',
        status: 'mismatch',
        expected: 0,
        actual: -40,
      },
      {
        line_id: 'bt_10',
        payout_id: 'po_1',
        matched_type: null,
        matched_id: null,
        status: 'not_checked',
        expected: null,
        actual: -13390,
      },
      {
        line_id: 'bt_20',
        payout_id: 'po_2',
        matched_type: 'payment',
        matched_id: 'py_1',
        status: 'ok',
        expected: 9680,
        actual: 9680,
      },
    ]);
    const { rows: judged } = await pool.query(
      'select payout_id, account_id, judged_at, lines_checked, lines_mismatched from payout_reconciliations order by payout_id',
    );
    expect(judged).toEqual([
      { payout_id: 'po_1', account_id: 'acc_1', judged_at: NOW, lines_checked: 9, lines_mismatched: 2 },
      { payout_id: 'po_2', account_id: 'acc_1', judged_at: NOW, lines_checked: 1, lines_mismatched: 0 },
    ]);
  });

  it('the scan finds a payment awaiting payout past PAYOUT_EXPECTED_DAYS, only within the synced payouts', async () => {
    expect(await judgePayoutTimeliness(pool, SETTINGS, NOW)).toEqual({ payments: 1, payouts: 1 });
    const notPaidOut = (await openFindings()).filter((finding) => finding.code === 'payment_not_paid_out');
    expect(notPaidOut).toEqual([
      expect.objectContaining({
        severity: 'warning',
        subject_type: 'payment',
        subject_id: 'py_4',
        account_id: 'acc_1',
        currency: 'usd',
        expected: 3000,
        actual: 0,
        at_stake: 3000,
        details: expect.objectContaining({ payout_type: 'cc', due_at: '2024-06-08T00:00:00.000Z' }),
      }),
    ]);
  });

  it('judging again keeps one open finding per code and subject', async () => {
    const before = await listAllFindings(pool);
    await reconcilePayouts(pool, ['po_1', 'po_2', 'po_3'], NOW, SETTINGS);
    await judgePayoutTimeliness(pool, SETTINGS, NOW);
    expect(await listAllFindings(pool)).toEqual(before);
  });

  it('a later payout crediting the payment resolves payment_not_paid_out', async () => {
    await insertPayouts(pool, [{ id: 'po_4', amount: 3000, created_at: '2024-06-11T00:00:00Z' }]);
    await insertPayoutLines(pool, [
      {
        id: 'bt_40',
        payout_id: 'po_4',
        txn_type: 'seller_payment',
        kind: 'payment',
        amount: 3000,
        ...payment('py_4'),
      },
    ]);
    await reconcilePayouts(pool, ['po_4'], NOW, SETTINGS);
    const py4 = (await listAllFindings(pool)).filter((finding) => finding.subject_id === 'py_4');
    expect(summary(py4)).toEqual([['payment_not_paid_out', 'warning', 'payment', 'py_4', 'resolved']]);
  });

  it('the duplicate credit removed and the payout paid resolve payment_paid_out_twice and payout_overdue', async () => {
    await pool.query(`delete from payout_lines where id = 'bt_20'`);
    await pool.query(`update payouts set amount = 0, status = 'paid' where id = 'po_2'`);
    await reconcilePayouts(pool, ['po_2'], NOW, SETTINGS);
    const resolved = (await listAllFindings(pool)).filter((finding) =>
      ['py_1', 'po_2'].includes(finding.subject_id),
    );
    expect(summary(resolved)).toEqual([
      ['payment_paid_out_twice', 'error', 'payment', 'py_1', 'resolved'],
      ['payout_overdue', 'warning', 'payout', 'po_2', 'resolved'],
    ]);
  });

  it('a payout whose lines are loaded again is unjudged until they all are', async () => {
    await pool.query(`update payouts set lines_complete = false where id = 'po_1'`);
    await reconcilePayouts(pool, ['po_1'], NOW, SETTINGS);
    expect((await pool.query(`select from payout_reconciliations where payout_id = 'po_1'`)).rowCount).toBe(
      0,
    );
    expect((await pool.query(`select from payout_line_checks where payout_id = 'po_1'`)).rowCount).toBe(0);
    // Its findings stand until the next complete judgement.
    expect((await openFindings()).filter((finding) => finding.code === 'payout_total_mismatch')).toHaveLength(
      1,
    );

    await pool.query(`update payouts set lines_complete = true where id in ('po_1', 'po_3')`);
    await reconcilePayouts(pool, ['po_1', 'po_3'], NOW, SETTINGS);
    const { rows } = await pool.query('select payout_id from payout_reconciliations order by payout_id');
    expect(rows.map((row) => row.payout_id)).toEqual(['po_1', 'po_2', 'po_3', 'po_4']);
    const unknown = (await openFindings()).filter((finding) => finding.code === 'payout_payment_unknown');
    expect(unknown.map((finding) => finding.subject_id)).toEqual(['bt_30', 'bt_8']);
  });
});

describe('a judgement overtaken by a newer projection', () => {
  it('records nothing for the payout whose lines changed after it was read, and the newer judgement stands', async () => {
    await insertPayouts(pool, [{ id: 'po_5', amount: 6000, created_at: '2024-06-11T00:00:00Z' }]);
    await insertPayoutLines(pool, [
      {
        id: 'bt_50',
        payout_id: 'po_5',
        txn_type: 'seller_payment',
        kind: 'payment',
        amount: 5900,
        ...payment('py_new'),
      },
    ]);
    const stale = judgePayouts(await readPayoutFacts(pool, ['po_5']), SETTINGS, NOW);
    expect(stale.payouts[0]?.runs.flatMap((run) => run.findings.map((finding) => finding.code))).toEqual([
      'payout_total_mismatch',
      'payout_line_mismatch',
    ]);
    // The projection corrects the line (a newer snapshot) and its own judgement runs first.
    await pool.query(
      `update payout_lines set amount = 6000, net = 6000, event_row_id = 2 where id = 'bt_50'`,
    );
    expect(await reconcilePayouts(pool, ['po_5'], NOW, SETTINGS)).toEqual({
      judged: ['po_5'],
      unjudged: [],
      overtaken: [],
    });
    expect(await recordPayoutJudgements(pool, stale)).toEqual({
      judged: [],
      unjudged: [],
      overtaken: ['po_5'],
    });
    expect((await openFindings()).filter((finding) => finding.subject_id === 'po_5')).toEqual([]);
    const { rows } = await pool.query(
      `select status, expected, actual from payout_line_checks where line_id = 'bt_50'`,
    );
    expect(rows).toEqual([{ status: 'ok', expected: 6000, actual: 6000 }]);
  });
});

describe('reconcile-payouts payload', () => {
  it.each([
    { payload: { payout_ids: [] }, valid: false },
    { payload: { payout_ids: Array.from({ length: 101 }, (_, index) => `po_${index}`) }, valid: false },
    { payload: { payout_ids: [''] }, valid: false },
    { payload: { payout_ids: ['po_1'] }, valid: true },
  ])('$payload.payout_ids.length ids: valid $valid', ({ payload, valid }) => {
    expect(queues['reconcile-payouts'].payloadSchema.safeParse(payload).success).toBe(valid);
  });
});
