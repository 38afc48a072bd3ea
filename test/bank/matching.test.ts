import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderBankStatement } from '../../simulator/bankStatementFile.ts';
import { matchBankDeposits } from '../../src/bank/matchDeposits.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  BANK_ENV,
  bankFindings,
  clearBank,
  csvStatement,
  fixture,
  insertPayout,
  postStatement,
} from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: BANK_ENV });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await clearBank(t.pool);
});

const matchedLines = async () => {
  const { rows } = await t.pool.query(
    'select value_date::text, amount, reference, payout_id from bank_lines where payout_id is not null order by id',
  );
  return rows;
};
const lineIds = async () =>
  (await t.pool.query<{ id: number }>('select id from bank_lines order by id')).rows.map((row) => row.id);
const rematch = () => matchBankDeposits(t.pool, t.config, new Date('2026-03-20T00:00:00Z'));

describe('matching bank credits to paid payouts (rule 5)', () => {
  it('matches a credit of the same currency and amount within the window, and raises nothing', async () => {
    await insertPayout(t.pool, { id: 'po_fixture_1', amount: 123456, deposits_at: '2026-03-01T15:00:00Z' });
    const response = await postStatement(t, 'camt053', await fixture('statement.camt053.xml'));
    expect(response.body.data).toMatchObject({ credits: 2, matched: 1 });
    expect(await matchedLines()).toEqual([
      { value_date: '2026-03-02', amount: 123456, reference: 'ACH-0001', payout_id: 'po_fixture_1' },
    ]);
    expect(await bankFindings(t.pool)).toEqual([]);
  });

  it('leaves a credit outside [deposits_at − 1 day, deposits_at + BANK_MATCH_DAYS] unmatched', async () => {
    await insertPayout(t.pool, { id: 'po_early', amount: 1000, deposits_at: '2026-03-05T12:00:00Z' });
    await insertPayout(t.pool, { id: 'po_late', amount: 2000, deposits_at: '2026-02-25T12:00:00Z' });
    await postStatement(
      t,
      'csv',
      csvStatement([
        ['2026-03-03', '10.00', 'Transfer', 'T1'],
        ['2026-03-01', '20.00', 'Transfer', 'T2'],
      ]),
    );
    expect(await matchedLines()).toEqual([]);
    await postStatement(
      t,
      'csv',
      csvStatement([
        ['2026-03-04', '10.00', 'Transfer', 'T3'],
        ['2026-02-28', '20.00', 'Transfer', 'T4'],
      ]),
    );
    expect((await matchedLines()).map((line) => [line.reference, line.payout_id])).toEqual([
      ['T3', 'po_early'],
      ['T4', 'po_late'],
    ]);
  });

  it('prefers the line naming the payout over a nearer date', async () => {
    await insertPayout(t.pool, { id: 'po_named', amount: 1000, deposits_at: '2026-03-02T12:00:00Z' });
    await postStatement(
      t,
      'csv',
      csvStatement([
        ['2026-03-02', '10.00', 'Transfer', 'NEAR'],
        ['2026-03-04', '10.00', 'JUSTIFI PAYOUT PO_NAMED', 'FAR'],
      ]),
    );
    expect((await matchedLines()).map((line) => [line.reference, line.payout_id])).toEqual([
      ['FAR', 'po_named'],
    ]);
  });

  it('leaves a tie unmatched with bank_match_ambiguous on the payout', async () => {
    await insertPayout(t.pool, { id: 'po_tie', amount: 1000, deposits_at: '2026-03-02T12:00:00Z' });
    const response = await postStatement(
      t,
      'csv',
      csvStatement([
        ['2026-03-01', '10.00', 'JUSTIFI PAYOUT', 'A'],
        ['2026-03-03', '10.00', 'JUSTIFI PAYOUT', 'B'],
      ]),
    );
    expect(response.body.data.matched).toBe(0);
    expect(await matchedLines()).toEqual([]);
    // The two contested credits are named in the ambiguity, not reported again as unmatched.
    expect(await bankFindings(t.pool)).toEqual([
      {
        code: 'bank_match_ambiguous',
        severity: 'warning',
        status: 'open',
        subject_type: 'payout',
        subject_id: 'po_tie',
        account_id: 'acc_bank',
        currency: 'usd',
        expected: { credits: 1 },
        actual: { credits: 2, bank_line_ids: await lineIds() },
        amount: 1000,
      },
    ]);
  });

  it('gives a credit two payouts fit equally to neither', async () => {
    await insertPayout(t.pool, { id: 'po_one', amount: 1000, deposits_at: '2026-03-01T12:00:00Z' });
    await insertPayout(t.pool, { id: 'po_two', amount: 1000, deposits_at: '2026-03-03T12:00:00Z' });
    await postStatement(t, 'csv', csvStatement([['2026-03-02', '10.00', 'Transfer', 'X']]));
    expect(await matchedLines()).toEqual([]);
    expect((await bankFindings(t.pool)).map((finding) => [finding.code, finding.subject_id])).toEqual([
      ['bank_match_ambiguous', 'po_one'],
      ['bank_match_ambiguous', 'po_two'],
    ]);
  });

  it('raises payout_not_in_bank for a paid payout whose window a statement of its currency covers', async () => {
    await insertPayout(t.pool, { id: 'po_missing', amount: 2500, deposits_at: '2026-03-02T12:00:00Z' });
    // Its window (03-01 to 03-05) is not wholly covered, or is covered in another currency: no finding.
    await insertPayout(t.pool, { id: 'po_uncovered', amount: 2600, deposits_at: '2026-03-04T12:00:00Z' });
    await insertPayout(t.pool, {
      id: 'po_cad',
      amount: 2700,
      currency: 'cad',
      deposits_at: '2026-03-02T12:00:00Z',
    });
    const statement = renderBankStatement('camt053', [], {
      covers: { from: '2026-03-01', to: '2026-03-06' },
    });
    await postStatement(t, 'camt053', statement.replace('<Acct>', '<Acct><Ccy>USD</Ccy>'));
    expect(await bankFindings(t.pool)).toEqual([
      {
        code: 'payout_not_in_bank',
        severity: 'error',
        status: 'open',
        subject_type: 'payout',
        subject_id: 'po_missing',
        account_id: 'acc_bank',
        currency: 'usd',
        expected: { amount: 2500, value_date_from: '2026-03-01', value_date_to: '2026-03-05' },
        actual: null,
        amount: 2500,
      },
    ]);
  });

  it('raises bank_deposit_unmatched for a provider credit no payout explains, and resolves it once one does', async () => {
    await postStatement(
      t,
      'csv',
      csvStatement([
        ['2026-03-02', '42.00', 'JustiFi payout', 'P1'],
        ['2026-03-02', '43.00', 'Customer transfer', 'P2'],
        ['2026-03-02', '-44.00', 'JUSTIFI fee', 'P3'],
      ]),
    );
    const [first] = await lineIds();
    expect(await bankFindings(t.pool)).toEqual([
      {
        code: 'bank_deposit_unmatched',
        severity: 'warning',
        status: 'open',
        subject_type: 'bank_line',
        subject_id: String(first),
        account_id: null,
        currency: 'usd',
        expected: { payout: 'a paid payout of this currency and amount due within the match window' },
        actual: { amount: 4200, value_date: '2026-03-02' },
        amount: 4200,
      },
    ]);
    await insertPayout(t.pool, { id: 'po_late_sync', amount: 4200, deposits_at: '2026-03-02T08:00:00Z' });
    expect(await rematch()).toEqual({ matched: 1, ambiguous: 0, notInBank: 0, unmatchedCredits: 0 });
    expect((await bankFindings(t.pool)).map((finding) => [finding.code, finding.status])).toEqual([
      ['bank_deposit_unmatched', 'resolved'],
    ]);
  });

  it('resolves payout_not_in_bank when a later statement brings the credit, and unmatches a payout no longer paid', async () => {
    await insertPayout(t.pool, { id: 'po_slow', amount: 900, deposits_at: '2026-03-02T12:00:00Z' });
    const deposits = [{ id: 'po_slow', amount: 900, currency: 'usd', deposits_at: '2026-03-02T12:00:00Z' }];
    const covers = { from: '2026-03-01', to: '2026-03-06' };
    await postStatement(t, 'bai2', renderBankStatement('bai2', deposits, { drop: ['po_slow'], covers }));
    expect((await bankFindings(t.pool)).map((finding) => [finding.code, finding.status])).toEqual([
      ['payout_not_in_bank', 'open'],
    ]);
    const later = await postStatement(
      t,
      'bai2',
      renderBankStatement('bai2', deposits, { covers, bankAccount: 'B' }),
    );
    expect(later.body.data).toMatchObject({ credits: 1, matched: 1 });
    expect((await bankFindings(t.pool)).map((finding) => [finding.code, finding.status])).toEqual([
      ['payout_not_in_bank', 'resolved'],
    ]);
    await t.pool.query(`update payouts set status = 'failed' where id = 'po_slow'`);
    expect(await rematch()).toMatchObject({ matched: 0 });
    expect(await matchedLines()).toEqual([]);
    // The credit says JUSTIFI and no paid payout explains it any more.
    expect((await bankFindings(t.pool)).map((finding) => [finding.code, finding.status])).toEqual([
      ['bank_deposit_unmatched', 'open'],
      ['payout_not_in_bank', 'resolved'],
    ]);
  });

  it('reports a credit altered by a cent as unmatched, and not the payout while its window is not covered', async () => {
    await insertPayout(t.pool, { id: 'po_alt', amount: 700, deposits_at: '2026-03-02T12:00:00Z' });
    const deposits = [{ id: 'po_alt', amount: 700, currency: 'usd', deposits_at: '2026-03-02T12:00:00Z' }];
    await postStatement(t, 'csv', renderBankStatement('csv', deposits, { alter: ['po_alt'] }));
    expect((await bankFindings(t.pool)).map((finding) => [finding.code, finding.subject_type])).toEqual([
      ['bank_deposit_unmatched', 'bank_line'],
    ]);
  });
});
