import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { auth, bySubject, DAY, type Loop, startLoop, usdFinding } from './endToEndLoop.ts';

// Every payout finding raised through the whole loop (simulator → webhooks and payout-sync → the real worker)
// and read through GET /api/findings as a user reads it; time moved on with the app's injected clock; and a
// rebuild from the raw log that judges everything the same.

const ACCOUNT = 'acc_e2e_findings';
let loop: Loop;
// The clock Tally and the simulator share: moved forward to let payments wait too long for a payout.
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const ids: Record<string, string> = {};
let dueAt: Date;

beforeAll(async () => {
  // Webhooks are signed with the real time: accepted once the clock has moved on a week.
  loop = await startLoop(ACCOUNT, { now, env: { WEBHOOK_TOLERANCE_SECONDS: String(10 * 24 * 3600) } });
  const payOut = async (name: string, script: Record<string, unknown>, webhooks = true) => {
    const sent = await loop.payOut(script, webhooks);
    ids[name] = sent.payout.id;
    return sent;
  };
  // 10,000 ¢ on Visa: 305 processing, 50 platform; the payout deducts 7 ¢ more processing fee.
  ids.a1 = (await loop.pay(10_000)).id;
  const wrong = await payOut('wrongFee', { wrong_fee_line: 7, status: 'paid' });
  ids.wrongFeeLine = wrong.lines.find((line) => line.txn_type === 'processing_fee')?.id as string;
  // The same 7 ¢ in the other sign convention and fee layout: on the fee of the payment's own line.
  await loop.pay(10_000);
  const inline = await payOut('wrongInline', {
    wrong_fee_line: 7,
    sign_convention: 'positive',
    fee_layout: 'inline',
    status: 'paid',
  });
  ids.wrongInlineLine = inline.lines.find((line) => line.txn_type === 'seller_payment')?.id as string;
  // 2,000 ¢ paid out, then credited again alone by a second payout.
  ids.a2 = (await loop.pay(2000)).id;
  await payOut('first', { status: 'paid' });
  await payOut('twice', { pay_payment_twice: true, status: 'paid' });
  // A line crediting 1,500 ¢ of a payment the provider itself does not know.
  await loop.pay(3000);
  const unknown = await payOut('unknown', { unknown_payment_line: true, status: 'paid' });
  ids.unknownLine = unknown.lines.find((line) => line.source_payment_id?.startsWith('py_unknown'))
    ?.id as string;
  // An ACH payment no card payout takes: it waits for a payout of its own type.
  const ach = await loop.pay(5000, { method: 'ach' });
  ids.ach = ach.id;
  dueAt = new Date(now().getTime() + 5 * DAY);
  // 4,000 ¢ (140 + 20 in fees: 3,840) fails; handed back, it and 6,000 ¢ (195 + 30: 5,775) are canceled;
  // handed back again, both go into a payout due two days ago and still in transit.
  await loop.pay(4000);
  await payOut('failed', { status: 'failed' });
  await loop.pay(6000);
  await payOut('canceled', { status: 'canceled' });
  await payOut('overdue', {
    status: 'in_transit',
    deposits_at: new Date(now().getTime() - 2 * DAY).toISOString(),
  });
  // 1,000 ¢ (58 + 5: 937) in transit, due tomorrow: overdue only once the clock has moved on.
  await loop.pay(1000);
  await payOut('dueTomorrow', { status: 'in_transit' });
  await loop.settleLoop();
  // 2,500 ¢ (99 + 13: 2,388) in a payout the provider states as 100 ¢ more than its lines: no webhook, the
  // sync of the account brings it.
  await loop.pay(2500);
  const misstated = await payOut('misstated', { status: 'paid' }, false);
  loop.simulator.putPayout({ ...misstated.payout, amount: misstated.payout.amount + 100 });
  await loop.runJob('payout-sync', { account_id: ACCOUNT });
}, 60_000);
afterAll(() => loop.close());

describe('payout findings raised through the loop, as GET /api/findings shows them', () => {
  it('payout_line_mismatch: 7 ¢ more fee than Tally judged, as a fee line or on the payment line alike', async () => {
    const mismatch = (line: string) =>
      usdFinding('payout_line_mismatch', 'error', ['balance_transaction', ids[line]], 7);
    expect(await loop.findings('payout_line_mismatch')).toEqual(
      bySubject([mismatch('wrongFeeLine'), mismatch('wrongInlineLine')]),
    );
    const checkOf = async (payout: string, line: string) => {
      const found = (await loop.payout(ids[payout] as string)).lines.find(
        (l: { id: string }) => l.id === ids[line],
      );
      return [
        found.check.status,
        found.check.matched_type,
        Number(found.check.expected),
        Number(found.check.actual),
      ];
    };
    expect(await checkOf('wrongFee', 'wrongFeeLine')).toEqual(['mismatch', 'payment_fee', -305, -312]);
    // Amount and fee of the line together: 10,000 − 355 expected, 10,000 − 362 deducted.
    expect(await checkOf('wrongInline', 'wrongInlineLine')).toEqual(['mismatch', 'payment', 9645, 9638]);
  });

  it('payment_paid_out_twice: the 2,000 ¢ payment credited by two payouts', async () => {
    expect(await loop.findings('payment_paid_out_twice')).toEqual([
      usdFinding('payment_paid_out_twice', 'error', ['payment', ids.a2], 2000),
    ]);
  });

  it('payout_payment_unknown: the 1,500 ¢ line naming a payment nobody knows, fetched once', async () => {
    expect(await loop.findings('payout_payment_unknown')).toEqual([
      usdFinding('payout_payment_unknown', 'error', ['balance_transaction', ids.unknownLine], 1500),
    ]);
    const fetched = loop.simulator.requests.filter((path) => path.startsWith('GET /v1/payments/py_unknown'));
    expect(fetched).toHaveLength(1);
  });

  it('payout_failed, payout_canceled and payout_overdue, each with the payout amount at stake', async () => {
    const payout = (code: string, severity: string, subject: string, atStake: number) => [
      usdFinding(code, severity, ['payout', ids[subject]], atStake),
    ];
    expect(await loop.findings('payout_failed')).toEqual(payout('payout_failed', 'error', 'failed', 3840));
    expect(await loop.findings('payout_canceled')).toEqual(
      payout('payout_canceled', 'warning', 'canceled', 9615),
    );
    expect(await loop.findings('payout_overdue')).toEqual(
      payout('payout_overdue', 'warning', 'overdue', 9615),
    );
  });

  it('payout_total_mismatch: the payout stating 100 ¢ more than its lines add up to', async () => {
    expect(await loop.findings('payout_total_mismatch')).toEqual([
      usdFinding('payout_total_mismatch', 'error', ['payout', ids.misstated], 100),
    ]);
  });

  it('finds every other line and payout in agreement: no payment_not_paid_out before its time', async () => {
    expect(await loop.findings('payment_not_paid_out')).toEqual([]);
    const first = await loop.payout(ids.first as string);
    expect(first.reconciliation).toMatchObject({ lines_checked: 3, lines_mismatched: 0 });
    const overdue = await loop.payout(ids.overdue as string);
    expect(overdue.reconciliation).toMatchObject({ lines_checked: 6, lines_mismatched: 0 });
  });
});

describe('time passing', () => {
  it('payment_not_paid_out and payout_overdue raised by payout-scan 5 days on: the ACH payment waiting, the payout still in transit', async () => {
    offsetMs = dueAt.getTime() - Date.now() + 3600_000;
    await loop.runJob('payout-scan');
    const overdue = (name: string, atStake: number) =>
      usdFinding('payout_overdue', 'warning', ['payout', ids[name]], atStake);
    expect(await loop.findings('payout_overdue')).toEqual(
      bySubject([overdue('overdue', 9615), overdue('dueTomorrow', 937)]),
    );
    expect(await loop.findings('payment_not_paid_out')).toEqual([
      usdFinding('payment_not_paid_out', 'warning', ['payment', ids.ach], 5000),
    ]);
  });

  it('resolves payment_not_paid_out once an ACH payout pays it, and payout_overdue once that payout lands', async () => {
    await loop.payOut({ payout_type: 'ach', status: 'paid' });
    await loop.movePayout(ids.overdue as string, 'paid');
    await loop.settleLoop();
    expect(await loop.findings('payment_not_paid_out')).toEqual([]);
    expect((await loop.findings('payout_overdue')).map((f) => f.subject_id)).toEqual([ids.dueTomorrow]);
    expect((await loop.findings('payment_not_paid_out', 'resolved')).map((f) => f.subject_id)).toEqual([
      ids.ach,
    ]);
    expect((await loop.findings('payout_overdue', 'resolved')).map((f) => f.subject_id)).toEqual([
      ids.overdue,
    ]);
  });
});

describe('everything else', () => {
  it('opens no other finding: the payments, their fees and the ACH payout all agree', async () => {
    const response = await request(loop.t.app)
      .get('/api/findings')
      .query({ account_id: ACCOUNT, status: 'open', limit: 100 })
      .set(auth);
    const codes = (response.body.data as { code: string }[]).map((finding) => finding.code).sort();
    expect(codes).toEqual([
      'payment_paid_out_twice',
      'payout_canceled',
      'payout_failed',
      'payout_line_mismatch',
      'payout_line_mismatch',
      'payout_overdue',
      'payout_payment_unknown',
      'payout_total_mismatch',
    ]);
  });
});

describe('tally reprocess --all', () => {
  const judgement = async () => {
    const query = async (sql: string) => (await loop.t.pool.query(sql)).rows;
    return {
      payouts: await query(`select * from payouts order by id`),
      lines: await query(`select * from payout_lines order by id`),
      checks: await query(
        `select line_id, payout_id, matched_type, matched_id, status, expected, actual
           from payout_line_checks order by line_id`,
      ),
      reconciliations: await query(
        `select payout_id, lines_checked, lines_mismatched from payout_reconciliations order by payout_id`,
      ),
      findings: await query(
        `select code, severity, subject_type, subject_id, account_id, currency, expected, actual, at_stake, status
           from findings order by code, subject_id, id`,
      ),
    };
  };

  it('rebuilds the same payouts, lines, line checks and findings from the raw log', async () => {
    const before = await judgement();
    expect(before.checks.length).toBeGreaterThan(20);
    const started = now();
    const result = await tallyInProcess(['reprocess', '--all'], { DATABASE_URL: loop.t.databaseUrl });
    expect(result.code, result.stderr).toBe(0);
    await loop.settleLoop();
    expect(await judgement()).toEqual(before);
    // Judged again from the rebuilt projections, not merely left as they were.
    const stale = await loop.t.pool.query(
      `select payout_id from payout_reconciliations where judged_at < $1`,
      [started],
    );
    expect(stale.rows).toEqual([]);
  });
});
