import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { auth, bySubject, DAY, type Loop, startLoop, usdFinding } from './endToEndLoop.ts';

// The last link of the chain: the bank. Payouts the simulator paid (webhooks, lines synced, judged) are
// confirmed by the statements it serves in each format, imported through POST /api/bank-statements; a credit
// the bank lost and one that arrived altered are findings; the daily report and the status sum it up.

const ACCOUNT = 'acc_e2e_bank';
let loop: Loop;
const payouts: Record<string, { id: string; amount: number }> = {};
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);
const TODAY = day(0);

async function statement(format: string, query: Record<string, string>) {
  const response = await request(loop.simulator.app)
    .get('/dev/bank-statement')
    .query({ format, account_id: ACCOUNT, ...query });
  expect(response.status, response.text).toBe(200);
  return response.text;
}

async function importStatement(format: string, file: string) {
  const response = await request(loop.t.app)
    .post(`/api/bank-statements?format=${format}`)
    .set(auth)
    .set('content-type', 'application/octet-stream')
    .send(Buffer.from(file));
  expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
  return { status: response.status, ...response.body.data };
}

const others = (...kept: string[]) =>
  Object.keys(payouts)
    .filter((name) => !kept.includes(name))
    .map((name) => payouts[name]?.id)
    .join(',');

beforeAll(async () => {
  loop = await startLoop(ACCOUNT, {});
  // One payment a payout, each amount its own: 1,000, 2,000, 3,000, 4,000 (3,840 paid out), 6,000 (5,775).
  for (const [name, amount] of [
    ['csv', 1000],
    ['camt053', 2000],
    ['bai2', 3000],
    ['dropped', 4000],
    ['altered', 6000],
  ] as const) {
    await loop.pay(amount);
    const { payout } = await loop.payOut({ status: 'paid' });
    payouts[name] = { id: payout.id, amount: payout.amount };
  }
  // A failed payout, for the report: its payment waits for a later one.
  await loop.pay(1500);
  const { payout: failed } = await loop.payOut({ status: 'failed' });
  payouts.failed = { id: failed.id, amount: failed.amount };
  // The clock's hourly sync of the account: the webhooks brought every payout already.
  await loop.runJob('payout-sync', { account_id: ACCOUNT });
}, 60_000);
afterAll(() => loop.close());

describe('bank statements from the simulator, imported through the API', () => {
  const imported: Record<string, Record<string, unknown>> = {};

  beforeAll(async () => {
    // camt.053 states it covers the whole match window: the credit it lacks and the one altered are findings.
    imported.camt053 = await importStatement(
      'camt053',
      await statement('camt053', {
        drop: others('camt053', 'altered'),
        alter: payouts.altered?.id as string,
        covers_from: day(-1),
        covers_to: day(3),
      }),
    );
    imported.bai2 = await importStatement('bai2', await statement('bai2', { drop: others('bai2') }));
    imported.csv = await importStatement('csv', await statement('csv', { drop: others('csv') }));
    await loop.settleLoop();
  });

  it('matches the credit of each format to its payout, shown as the payout bank line', async () => {
    for (const format of ['csv', 'camt053', 'bai2']) {
      expect(imported[format], format).toMatchObject({ status: 201, duplicates: 0, matched: 1 });
      const payout = payouts[format] as { id: string; amount: number };
      const detail = await loop.payout(payout.id);
      expect(detail.bank_line, format).toMatchObject({
        value_date: TODAY,
        amount: payout.amount,
        reference: payout.id,
        description: `JUSTIFI PAYOUT ${payout.id}`,
      });
      expect(detail.bank_line_id).toBe(detail.bank_line.id);
    }
    expect(imported.camt053).toMatchObject({ lines: 2, credits: 2 });
  });

  it('raises payout_not_in_bank for the dropped and the altered credit, bank_deposit_unmatched for the altered one', async () => {
    expect(await loop.findings('payout_not_in_bank')).toEqual(
      bySubject([
        usdFinding('payout_not_in_bank', 'error', ['payout', payouts.dropped?.id], 3840),
        usdFinding('payout_not_in_bank', 'error', ['payout', payouts.altered?.id], 5775),
      ]),
    );
    const altered = await loop.t.pool.query(`select id from bank_lines where reference = $1`, [
      payouts.altered?.id,
    ]);
    expect(await loop.findings('bank_deposit_unmatched')).toEqual([
      usdFinding('bank_deposit_unmatched', 'warning', ['bank_line', String(altered.rows[0].id)], 5776),
    ]);
    // The bai2 and csv credits, imported after the camt.053 statement, resolved what it had left missing.
    expect((await loop.findings('payout_not_in_bank', 'resolved')).map((f) => f.subject_id)).toEqual(
      [payouts.bai2?.id, payouts.csv?.id].sort(),
    );
  });

  it('adds nothing when a statement is imported again', async () => {
    const again = await importStatement(
      'camt053',
      await statement('camt053', {
        drop: others('camt053', 'altered'),
        alter: payouts.altered?.id as string,
        covers_from: day(-1),
        covers_to: day(3),
      }),
    );
    expect(again).toMatchObject({ status: 200, id: imported.camt053?.id, lines: 2, duplicates: 2 });
    const listed = await request(loop.t.app).get('/api/bank-statements').set(auth);
    expect(listed.body.data).toHaveLength(3);
    const lines = await loop.t.pool.query(`select count(*)::int as n from bank_lines`);
    expect(lines.rows[0].n).toBe(4);
    expect(await loop.findings('payout_not_in_bank')).toHaveLength(2);
  });

  it('raises bank_match_ambiguous for two credits fitting one payout equally, neither naming it', async () => {
    // The failed payout's 1,500 ¢ payment paid out again (1,500 − 71 − 8 = 1,421 ¢); the bank shows two such
    // credits that day, neither naming the payout.
    const { payout } = await loop.payOut({ status: 'paid' });
    payouts.repaid = { id: payout.id, amount: payout.amount };
    await loop.settleLoop();
    expect((await loop.findings('payout_not_in_bank')).map((f) => f.subject_id)).toContain(payout.id);
    const csv = [
      'Value Date,Description,Reference,Amount,Currency',
      `${TODAY},JUSTIFI DEPOSIT,DEP-1,14.21,USD`,
      `${TODAY},JUSTIFI DEPOSIT,DEP-2,14.21,USD`,
      '',
    ].join('\n');
    expect(await importStatement('csv', csv)).toMatchObject({ status: 201, lines: 2, matched: 0 });
    expect(await loop.findings('bank_match_ambiguous')).toEqual([
      usdFinding('bank_match_ambiguous', 'warning', ['payout', payout.id], 1421),
    ]);
    expect((await loop.findings('payout_not_in_bank')).map((f) => f.subject_id)).not.toContain(payout.id);
    expect(await loop.findings('bank_deposit_unmatched')).toHaveLength(1);
  });

  it('matches a credit imported before its payout was synced once the sync brings the payout', async () => {
    // 2,500 ¢ (99 + 13: 2,388 ¢) paid out with no webhook: the bank knows the payout before Tally does.
    await loop.pay(2500);
    const { payout } = await loop.payOut({ status: 'paid' }, false);
    payouts.early = { id: payout.id, amount: payout.amount };
    await loop.settleLoop();
    const file = await statement('csv', { drop: others('early') });
    expect(await importStatement('csv', file)).toMatchObject({ status: 201, lines: 1, matched: 0 });
    const line = await loop.t.pool.query(`select id from bank_lines where reference = $1`, [payout.id]);
    const lineId = String(line.rows[0].id);
    expect(
      (await loop.findings('bank_deposit_unmatched')).map((f) => [f.subject_id, f.at_stake]),
    ).toContainEqual([lineId, 2388]);
    await loop.runJob('payout-sync', { account_id: ACCOUNT });
    expect((await loop.payout(payout.id)).bank_line).toMatchObject({ id: Number(lineId), amount: 2388 });
    expect((await loop.findings('bank_deposit_unmatched')).map((f) => f.subject_id)).not.toContain(lineId);
  });

  it("sums the scenario up in GET /api/status and the daily report's payouts section", async () => {
    const status = (await request(loop.t.app).get('/api/status').set(auth)).body.data;
    expect(status).toMatchObject({ payments_awaiting_payout: 0, payouts_unmatched_in_bank: 2 });
    expect(status.last_payout_sync_at).not.toBeNull();
    await loop.runJob('daily-report', { date: TODAY });
    const list = await request(loop.t.app).get('/api/reports?kind=daily').set(auth);
    const report = (await request(loop.t.app).get(`/api/reports/${list.body.data[0].id}.json`).set(auth))
      .body;
    const paidOut = ['csv', 'camt053', 'bai2', 'dropped', 'altered', 'repaid', 'early'].reduce(
      (sum, name) => sum + (payouts[name]?.amount ?? 0),
      0,
    );
    expect(report.payouts).toEqual([
      {
        account_type: 'test',
        account_id: ACCOUNT,
        currency: 'usd',
        created: 8,
        paid: 7,
        failed: 1,
        paid_out: paidOut,
        // Three lines each (the payment, its processing and platform fees), the failed payout's too.
        lines_checked: 24,
        lines_mismatched: 0,
        awaiting_payout: 0,
        awaiting_payout_amount: 0,
        oldest_awaiting_at: null,
        bank_matched: 4,
        bank_unmatched: 3,
      },
    ]);
  });
});

describe('tally reprocess --all', () => {
  it('rebuilds the same payouts, bank matches and findings', async () => {
    const state = async () => {
      const query = async (sql: string) => (await loop.t.pool.query(sql)).rows;
      return {
        payouts: await query(`select * from payouts order by id`),
        matches: await query(`select id, payout_id from bank_lines order by id`),
        findings: await query(
          `select code, severity, subject_type, subject_id, currency, expected, actual, at_stake, status
             from findings order by code, subject_id, id`,
        ),
      };
    };
    const before = await state();
    const result = await tallyInProcess(['reprocess', '--all'], { DATABASE_URL: loop.t.databaseUrl });
    expect(result.code, result.stderr).toBe(0);
    await loop.settleLoop();
    expect(await state()).toEqual(before);
  });
});
