import type { Queryable } from '../../src/db/pool.ts';
import {
  insertBankCredit,
  insertCheck,
  insertFeeAndRefund,
  insertJudgement,
  insertLine,
  insertPayment,
  insertPayout,
  insertSyncAccount,
  recordRun,
} from './readFixtures.ts';

export const ESCAPED_ACCOUNT = 'acc_<i>esc</i>';
export const SCRIPT = '<script>alert("x")</script>';

/**
 * Five payouts: po_a1 (acc_a, live usd, paid 13,710 on 2026-11-02, six lines judged, one fee line mismatched,
 * matched in the bank), po_a2 (in transit, lines still loading), po_a3 (failed), po_b1 (acc_b, test cad, paid,
 * not in the bank), po_esc (markup in its account and description). Two payments await a payout; a third did
 * and was resolved.
 */
export async function seedPayouts(db: Queryable): Promise<{ bankLineId: number }> {
  const payment = (
    id: string,
    amount: number,
    created: string,
    account = 'acc_a',
    type = 'live',
    cur = 'usd',
  ) =>
    insertPayment(db, {
      id,
      account_id: account,
      account_type: type,
      amount,
      currency: cur,
      created_at: created,
    });
  await payment('py_r1', 10_000, '2026-11-01T10:00:00Z');
  await payment('py_r2', 5_000, '2026-11-01T10:30:00Z');
  await payment('py_wait', 2_500, '2026-10-20T00:00:00Z');
  await payment('py_wait2', 1_500, '2026-10-25T00:00:00Z');
  await payment('py_b1', 4_200, '2026-11-01T11:00:00Z', 'acc_b', 'test', 'cad');
  await insertFeeAndRefund(db);

  await insertPayout(db, {
    id: 'po_a1',
    account_id: 'acc_a',
    amount: 13_710,
    currency: 'usd',
    status: 'paid',
    deposits_at: '2026-11-02T12:00:00Z',
    created_at: '2026-11-02T08:00:00Z',
    updated_at: '2026-11-02T15:00:00Z',
    line_count: 6,
    lines_complete: true,
  });
  const line = (n: number, txn: string, kind: string, amount: number, source: string, type: string) =>
    insertLine(db, {
      id: `bt_a1_${n}`,
      payout_id: 'po_a1',
      txn_type: txn,
      kind,
      amount,
      source_id: source,
      source_type: type,
      source_payment_id: type === 'payout' ? null : source === 'py_r2' ? 'py_r2' : 'py_r1',
      created_at: `2026-11-02T01:0${n}:00Z`,
    });
  await line(1, 'seller_payment', 'payment', 10_000, 'py_r1', 'payment');
  await line(2, 'processing_fee', 'fee', -320, 'py_r1', 'payment');
  await line(3, 'seller_payment', 'payment', 5_000, 'py_r2', 'payment');
  await line(4, 'seller_payment_refund', 'refund', -1_000, 're_r1', 'refund');
  await line(5, 'processing_fee_return', 'fee_return', 30, 're_r1', 'refund');
  await line(6, 'payout', 'payout', -13_710, 'po_a1', 'payout');
  const check = (
    n: number,
    type: string | null,
    id: string | null,
    status: string,
    e: number | null,
    a: number | null,
  ) =>
    insertCheck(db, {
      line_id: `bt_a1_${n}`,
      payout_id: 'po_a1',
      matched_type: type,
      matched_id: id,
      status,
      expected: e,
      actual: a,
    });
  await check(1, 'payment', 'py_r1', 'ok', 10_000, 10_000);
  await check(2, 'payment_fee', 'pyfee_r1', 'mismatch', -300, -320);
  await check(3, 'payment', 'py_r2', 'ok', 5_000, 5_000);
  await check(4, 'refund', 're_r1', 'ok', -1_000, -1_000);
  await check(5, 'returned_fee', 'rfee_r1', 'ok', 30, 30);
  await check(6, null, null, 'not_checked', null, null);
  await insertJudgement(db, 'po_a1', 'acc_a', '2026-11-02T13:00:00Z', 5, 1);
  const bankLineId = await insertBankCredit(db, {
    payout_id: 'po_a1',
    amount: 13_710,
    value_date: '2026-11-02',
    reference: 'PO po_a1',
    description: 'JUSTIFI <b>payout</b> "A&B"',
  });
  // A credit that matched nothing: never a payout's bank line.
  await insertBankCredit(db, {
    payout_id: null,
    amount: 13_710,
    value_date: '2026-11-03',
    reference: 'X',
    description: 'other',
  });

  await insertPayout(db, {
    id: 'po_a2',
    account_id: 'acc_a',
    amount: 5_000,
    currency: 'usd',
    status: 'in_transit',
    deposits_at: '2026-11-04T12:00:00Z',
    created_at: '2026-11-03T08:00:00Z',
    updated_at: '2026-11-03T08:00:00Z',
    line_count: null,
    lines_complete: false,
  });
  await insertLine(db, {
    id: 'bt_a2_1',
    payout_id: 'po_a2',
    txn_type: 'seller_payment',
    kind: 'payment',
    amount: 5_000,
    fee: 145,
    source_id: 'py_unknown',
    source_type: 'payment',
    source_payment_id: 'py_unknown',
    created_at: '2026-11-03T07:00:00Z',
  });
  await insertPayout(db, {
    id: 'po_a3',
    account_id: 'acc_a',
    amount: 777,
    currency: 'usd',
    status: 'failed',
    deposits_at: '2026-11-02T06:00:00Z',
    created_at: '2026-11-01T09:00:00Z',
    updated_at: '2026-11-02T09:00:00Z',
    line_count: 0,
    lines_complete: true,
  });
  await insertJudgement(db, 'po_a3', 'acc_a', '2026-11-02T09:30:00Z', 0, 0);
  await insertPayout(db, {
    id: 'po_b1',
    account_id: 'acc_b',
    amount: 4_200,
    currency: 'cad',
    status: 'paid',
    deposits_at: '2026-11-02T18:00:00Z',
    created_at: '2026-11-01T12:00:00Z',
    updated_at: '2026-11-02T18:00:00Z',
    line_count: 1,
    lines_complete: true,
  });
  await insertLine(
    db,
    {
      id: 'bt_b1_1',
      payout_id: 'po_b1',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 4_200,
      source_id: 'py_b1',
      source_type: 'payment',
      source_payment_id: 'py_b1',
      created_at: '2026-11-01T11:30:00Z',
    },
    'acc_b',
    'cad',
  );
  await insertCheck(db, {
    line_id: 'bt_b1_1',
    payout_id: 'po_b1',
    matched_type: 'payment',
    matched_id: 'py_b1',
    status: 'ok',
    expected: 4_200,
    actual: 4_200,
  });
  await insertJudgement(db, 'po_b1', 'acc_b', '2026-11-01T13:00:00Z', 1, 0);
  await insertPayout(db, {
    id: 'po_esc',
    account_id: ESCAPED_ACCOUNT,
    amount: 100,
    currency: 'usd',
    status: 'paid',
    deposits_at: null,
    created_at: '2026-10-01T00:00:00Z',
    updated_at: '2026-10-01T00:00:00Z',
    line_count: null,
    lines_complete: false,
    description: SCRIPT,
  });

  await insertSyncAccount(db, 'acc_a', '2026-11-02T14:00:00Z');
  await insertSyncAccount(db, 'acc_b', '2026-11-02T16:30:00Z');

  const usdA = { id: 'acc_a', currency: 'usd' };
  await recordRun(db, 'payout:po_a1', '2026-11-02T13:00:00Z', usdA, [
    {
      code: 'payout_line_mismatch',
      severity: 'error',
      subjectType: 'balance_transaction',
      subjectId: 'bt_a1_2',
      expected: -300,
      actual: -320,
      details: { payout_id: 'po_a1', payment_id: 'py_r1', kind: 'fee' },
      atStake: 20,
    },
  ]);
  await recordRun(db, 'payout:po_a3', '2026-11-02T09:30:00Z', usdA, [
    {
      code: 'payout_failed',
      severity: 'error',
      subjectType: 'payout',
      subjectId: 'po_a3',
      expected: 'paid',
      actual: 'failed',
      details: { amount: 777 },
      atStake: 777,
    },
  ]);
  await recordRun(db, 'bank:acc_b', '2026-11-03T00:00:00Z', { id: 'acc_b', currency: 'cad' }, [
    {
      code: 'payout_not_in_bank',
      severity: 'error',
      subjectType: 'payout',
      subjectId: 'po_b1',
      expected: 4_200,
      actual: null,
      details: { amount: 4_200 },
      atStake: 4_200,
    },
  ]);
  const awaiting = (id: string, amount: number) => ({
    code: 'payment_not_paid_out' as const,
    severity: 'warning' as const,
    subjectType: 'payment',
    subjectId: id,
    expected: null,
    actual: null,
    details: { amount },
    atStake: amount,
  });
  await recordRun(db, 'payouts-expected:acc_a', '2026-11-02T00:00:00Z', usdA, [
    awaiting('py_wait', 2_500),
    awaiting('py_wait2', 1_500),
    awaiting('py_r2', 5_000),
  ]);
  // po_a1 paid py_r2: the next run no longer reports it, so its finding resolves.
  await recordRun(db, 'payouts-expected:acc_a', '2026-11-02T14:00:00Z', usdA, [
    awaiting('py_wait', 2_500),
    awaiting('py_wait2', 1_500),
  ]);
  return { bankLineId };
}
