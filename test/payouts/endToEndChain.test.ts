import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, type Loop, startLoop } from './endToEndLoop.ts';

// The chain a finance team closes the month on, end to end over HTTP with the real worker: fee configurations
// in the simulator → payments priced by them (signed webhooks, fee-checked by Tally against the configurations
// it synced) → payouts in each sign convention and fee layout (payout.* webhooks) → lines fetched by
// payout-sync → each line judged against the payment, fee, refund or returned fee it pays out.

const ACCOUNT = 'acc_e2e_chain';
let loop: Loop;
type Payment = Awaited<ReturnType<Loop['pay']>>;
const COMBOS = ['negative/lines', 'positive/lines', 'negative/inline', 'positive/inline'] as const;
const paid: Record<string, { payoutId: string; big: Payment; small: Payment }> = {};

beforeAll(async () => {
  loop = await startLoop(ACCOUNT, {});
  for (const combo of COMBOS) {
    const [sign_convention, fee_layout] = combo.split('/');
    // 10,000 ¢ on Visa online: 2.75 % + 30 = 305 processing, 0.5 % = 50 platform; refunded 1,000 handing 29 back.
    const big = await loop.pay(10_000);
    await loop.refund(big, 1000, 29);
    // 2,500 ¢: 68.75 + 30 = 99 processing, 12.5 = 13 platform (half-up).
    const small = await loop.pay(2500);
    await loop.settleLoop();
    const { payout } = await loop.payOut({ sign_convention, fee_layout, status: 'paid' });
    paid[combo] = { payoutId: payout.id, big, small };
  }
  await loop.settleLoop();
}, 60_000);
afterAll(() => loop.close());

const sorted = (rows: unknown[][]) => rows.map((row) => JSON.stringify(row)).sort();

const fee = (payment: Payment, type: string) => {
  const found = payment.fees.find((candidate) => candidate.type === type);
  if (!found) throw new Error(`no ${type}`);
  return found;
};

describe('fee configuration → payment fee', () => {
  it('prices each payment with the configurations Tally synced, and Tally finds nothing wrong with its fees', async () => {
    const { big } = paid['negative/lines'] as { big: Payment };
    const response = await request(loop.t.app).get(`/api/payments/${big.id}`).set(auth);
    expect(response.status).toBe(200);
    const payment = response.body.data;
    expect(
      payment.fees.map((f: Record<string, unknown>) => [
        f.id,
        f.type,
        Number(f.amount),
        f.source_configuration_id,
      ]),
    ).toEqual([
      [fee(big, 'platform_fee').id, 'platform_fee', 50, loop.configurations.platform],
      [fee(big, 'processing_fee').id, 'processing_fee', 305, loop.configurations.visa_brand_ecomm],
    ]);
    expect(payment.refunds).toMatchObject([
      { id: `re_${big.id.slice(3)}`, status: 'succeeded', returned_fees: [{ returned_amount: 29 }] },
    ]);
    expect(payment.findings).toEqual([]);
    // Judged, on its newest state: no finding means the fees agreed with the configurations.
    const state = await loop.t.pool.query(
      `select reconciled_version = projected_version as current, reconciled_at is not null as reconciled
         from payment_reconciliation_states where payment_id = $1`,
      [big.id],
    );
    expect(state.rows).toEqual([{ current: true, reconciled: true }]);
  });
});

describe('payment fee → payout line, in each sign convention and fee layout', () => {
  // What each line was checked against: [txn_type, status, matched type, matched id, expected = actual].
  function expectedChecks(combo: string) {
    const { big, small } = paid[combo] as { big: Payment; small: Payment };
    const refundId = `re_${big.id.slice(3)}`;
    const returnedId = `rtfee_${big.id.slice(3)}`;
    if (combo.endsWith('/inline'))
      return [
        ['seller_payment', 'ok', 'payment', big.id, 9645],
        ['seller_payment_refund', 'ok', 'refund', refundId, -1000],
        ['processing_fee_return', 'ok', 'returned_fee', returnedId, 29],
        ['seller_payment', 'ok', 'payment', small.id, 2388],
      ];
    return [
      ['seller_payment', 'ok', 'payment', big.id, 10_000],
      ['processing_fee', 'ok', 'payment_fee', fee(big, 'processing_fee').id, -305],
      ['platform_fee', 'ok', 'payment_fee', fee(big, 'platform_fee').id, -50],
      ['seller_payment_refund', 'ok', 'refund', refundId, -1000],
      ['processing_fee_return', 'ok', 'returned_fee', returnedId, 29],
      ['seller_payment', 'ok', 'payment', small.id, 2500],
      ['processing_fee', 'ok', 'payment_fee', fee(small, 'processing_fee').id, -99],
      ['platform_fee', 'ok', 'payment_fee', fee(small, 'platform_fee').id, -13],
    ];
  }

  it.each(COMBOS)(
    '%s: every line ok, matched to the object it pays out, and the payout judged without findings',
    async (combo) => {
      const detail = await loop.payout((paid[combo] as { payoutId: string }).payoutId);
      expect(detail).toMatchObject({
        status: 'paid',
        amount: 11_062,
        currency: 'usd',
        lines_complete: true,
        judged: true,
        open_findings: 0,
        findings: [],
      });
      const checks = expectedChecks(combo);
      expect(detail.reconciliation).toMatchObject({ lines_checked: checks.length, lines_mismatched: 0 });
      const lines = detail.lines as { txn_type: string; check: Record<string, unknown>; matched: unknown }[];
      const judged = lines
        .filter((line) => line.txn_type !== 'payout')
        .map((line) => [
          line.txn_type,
          line.check.status,
          line.check.matched_type,
          line.check.matched_id,
          Number(line.check.expected),
        ]);
      // Lines of one payout share their created_at: the API orders them by their random ids.
      expect(sorted(judged)).toEqual(sorted(checks));
      for (const line of lines.filter((l) => l.txn_type !== 'payout'))
        expect(Number(line.check.actual)).toBe(Number(line.check.expected));
      expect(lines.filter((line) => line.txn_type === 'payout').map((line) => line.check.status)).toEqual([
        'not_checked',
      ]);
    },
  );

  it('shows on each line the Tally object it pays out: the fee judged against the configuration, the refund, the fee returned', async () => {
    const { payoutId, big } = paid['positive/lines'] as { payoutId: string; big: Payment };
    const detail = await loop.payout(payoutId);
    const feeLine = detail.lines.find(
      (line: { txn_type: string; source_payment_id: string }) =>
        line.txn_type === 'processing_fee' && line.source_payment_id === big.id,
    );
    expect(Number(feeLine.amount)).toBe(-305);
    expect(feeLine.matched).toMatchObject({
      type: 'payment_fee',
      id: fee(big, 'processing_fee').id,
      payment_id: big.id,
      fee_type: 'processing_fee',
      currency: 'usd',
    });
    expect(Number(feeLine.matched.amount)).toBe(305);
    // The refund and the fee it handed back, as Tally holds them, next to the lines that debit and return them.
    const matchedOf = (txnType: string) => {
      const line = detail.lines.find(
        (l: { txn_type: string; source_payment_id: string }) =>
          l.txn_type === txnType && l.source_payment_id === big.id,
      );
      return { ...line.matched, amount: Number(line.matched.amount), line: Number(line.amount) };
    };
    expect(matchedOf('seller_payment_refund')).toEqual({
      type: 'refund',
      id: `re_${big.id.slice(3)}`,
      payment_id: big.id,
      refund_id: `re_${big.id.slice(3)}`,
      fee_type: null,
      amount: 1000,
      currency: 'usd',
      status: 'succeeded',
      line: -1000,
    });
    expect(matchedOf('processing_fee_return')).toEqual({
      type: 'returned_fee',
      id: `rtfee_${big.id.slice(3)}`,
      payment_id: big.id,
      refund_id: `re_${big.id.slice(3)}`,
      fee_type: 'processing_fee',
      amount: 29,
      currency: 'usd',
      status: 'succeeded',
      line: 29,
    });
  });

  it('lists the four payouts paid, complete, judged clean and not yet in the bank, and opens no finding', async () => {
    const response = await request(loop.t.app)
      .get('/api/payouts')
      .query({ account_id: ACCOUNT, status: 'paid' })
      .set(auth);
    expect(response.status).toBe(200);
    const listed = (response.body.data as Record<string, unknown>[]).map((payout) => [
      payout.id,
      payout.amount,
      payout.lines_complete,
      payout.bank_line_id,
      payout.open_findings,
    ]);
    expect(listed.sort()).toEqual(
      COMBOS.map((combo) => [(paid[combo] as { payoutId: string }).payoutId, 11_062, true, null, 0]).sort(),
    );
    const findings = await request(loop.t.app).get('/api/findings').query({ account_id: ACCOUNT }).set(auth);
    expect(findings.body.data).toEqual([]);
  });
});

describe('payout snapshots arriving late or out of order', () => {
  it('keeps a paid payout paid when its older in_transit state arrives after, by webhook or by the API', async () => {
    await loop.pay(4000);
    await loop.settleLoop();
    const { payout: inTransit } = await loop.payOut({ status: 'in_transit' }, false);
    await loop.movePayout(inTransit.id, 'paid');
    await loop.settleLoop();
    await loop.deliver('payout.created', inTransit);
    await loop.settleLoop();
    expect(await loop.payout(inTransit.id)).toMatchObject({ status: 'paid', judged: true, open_findings: 0 });
    // The API answering with the older state (a stale replica) stores it, and the projection keeps paid.
    loop.simulator.putPayout(inTransit);
    await loop.runJob('payout-sync', { account_id: ACCOUNT });
    const detail = await loop.payout(inTransit.id);
    expect(detail).toMatchObject({ status: 'paid', amount: 3840, lines_complete: true, findings: [] });
    expect(detail.reconciliation).toMatchObject({ lines_checked: 3, lines_mismatched: 0 });
  });
});

describe('Tally objects arriving after the payout that pays them out', () => {
  it('judges a refund line short while the refund is not delivered, and clean once it is', async () => {
    const payment = await loop.pay(8000);
    const refund = await loop.refund(payment, 2000, 58, { deliver: false });
    await loop.settleLoop();
    const { payout } = await loop.payOut({ status: 'paid' });
    await loop.settleLoop();
    const statuses = async () =>
      Object.fromEntries(
        (await loop.payout(payout.id)).lines.map((line: { txn_type: string; check: { status: string } }) => [
          line.txn_type,
          line.check.status,
        ]),
      );
    expect(await statuses()).toMatchObject({
      seller_payment_refund: 'mismatch',
      processing_fee_return: 'mismatch',
    });
    // Tally knew no refund: the whole 2,000 ¢ debited and the 58 ¢ handed back are at stake.
    const open = await loop.findings('payout_line_mismatch');
    expect(open.map((finding) => Number(finding.at_stake)).sort((a, b) => a - b)).toEqual([58, 2000]);
    await loop.deliver('payment.refunded', refund);
    await loop.settleLoop();
    expect(await statuses()).toMatchObject({ seller_payment_refund: 'ok', processing_fee_return: 'ok' });
    expect(await loop.findings('payout_line_mismatch')).toEqual([]);
  });

  it('fetches once a payment whose webhooks never came, and judges its lines against it', async () => {
    const payment = await loop.pay(5000, { drop_webhooks: true });
    const { payout } = await loop.payOut({ status: 'paid' }, false);
    await loop.runJob('payout-sync', { account_id: ACCOUNT });
    const detail = await loop.payout(payout.id);
    expect(detail).toMatchObject({ status: 'paid', judged: true, findings: [] });
    expect(detail.reconciliation).toMatchObject({ lines_checked: 3, lines_mismatched: 0 });
    const fetched = loop.simulator.requests.filter((path) => path === `GET /v1/payments/${payment.id}`);
    expect(fetched).toHaveLength(1);
  });
});
