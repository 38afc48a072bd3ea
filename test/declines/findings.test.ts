import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import alertScan from '../../jobs/alert-scan.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { JobContext } from '../../src/queue/job.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { deliver, settle } from '../helpers/fixtures.ts';
import { attempt, DO_NOT_RETRY, RETRY_LATER } from './declineDeliveries.ts';

// Declines through POST /webhooks, the projection worker and the reconcile-payments jobs.
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ worker: true });
});
afterAll(() => t.close());

const findingsOf = async (code: string, subjectId: string) =>
  (
    await t.pool.query(
      `select code, severity, status, subject_type, subject_id, account_id, currency, expected, actual, details
         from findings where code = $1 and subject_id = $2 order by id`,
      [code, subjectId],
    )
  ).rows;

async function send(...bodies: string[]) {
  await deliver(t.app, bodies);
  await settle(t);
}

describe('card_retried_against_advice', () => {
  it('a retry after a do-not-retry decline raises it on the retry, naming the decline', async () => {
    const card = { id: 'pm_dnr' };
    await send(
      attempt({ id: 'py_dnr_1', at: '2026-11-01T10:00:00Z', card, decline: DO_NOT_RETRY }),
      attempt({ id: 'py_dnr_2', at: '2026-11-01T11:00:00Z', card, amount: 7250 }),
    );
    expect(await findingsOf('card_retried_against_advice', 'py_dnr_2')).toEqual([
      {
        code: 'card_retried_against_advice',
        severity: 'error',
        status: 'open',
        subject_type: 'payment',
        subject_id: 'py_dnr_2',
        account_id: 'acc_decl_1',
        currency: 'usd',
        expected: 'do_not_retry',
        actual: 'py_dnr_1',
        details: {
          earlier_payment_id: 'py_dnr_1',
          earlier_account_id: 'acc_decl_1',
          advice: 'do_not_retry',
          advice_in_words: 'Do not charge this card again: the issuer will never approve it.',
          scope: null,
          decline_code: 'do_not_retry',
          network: 'MASTERCARD',
          network_error_code: '504',
          network_error_category: '03',
          declined_at: '2026-11-01T10:00:00.000Z',
          amount: 7250,
        },
      },
    ]);
    // The decline itself was not a retry.
    expect(await findingsOf('card_retried_against_advice', 'py_dnr_1')).toEqual([]);
  });

  it('a retry after a retry-later decline raises nothing', async () => {
    const card = { id: 'pm_later' };
    await send(
      attempt({ id: 'py_later_1', at: '2026-11-01T10:00:00Z', card, decline: RETRY_LATER }),
      attempt({ id: 'py_later_2', at: '2026-11-02T10:00:00Z', card }),
    );
    expect(await findingsOf('card_retried_against_advice', 'py_later_2')).toEqual([]);
  });

  it('same brand, last four and expiry is the same card, whatever the payment method id', async () => {
    const card = { brand: 'Mastercard', acct_last_four: 5454, exp_month: 4, exp_year: 2031 };
    await send(
      attempt({
        id: 'py_same_1',
        at: '2026-11-03T10:00:00Z',
        card: { ...card, id: 'pm_same_a' },
        decline: DO_NOT_RETRY,
      }),
      attempt({
        id: 'py_same_2',
        at: '2026-11-03T12:00:00Z',
        card: { ...card, id: 'pm_same_b', brand: 'mastercard' },
      }),
      // Same last four, another expiry: another card.
      attempt({
        id: 'py_same_3',
        at: '2026-11-03T13:00:00Z',
        card: { ...card, id: 'pm_same_c', exp_year: 2032 },
      }),
    );
    expect((await findingsOf('card_retried_against_advice', 'py_same_2')).map((f) => f.actual)).toEqual([
      'py_same_1',
    ]);
    expect(await findingsOf('card_retried_against_advice', 'py_same_3')).toEqual([]);
  });

  it('R0 forbids a retry at the same merchant only; R3 at every merchant', async () => {
    const r0 = {
      ...DO_NOT_RETRY,
      decline_code: 'generic_decline',
      network: 'VISA',
      network_error_code: '500',
      network_error_category: 'R0',
    };
    const r3 = { ...r0, network_error_category: 'R3' };
    await send(
      attempt({
        id: 'py_r0_1',
        account: 'acc_decl_1',
        at: '2026-11-04T10:00:00Z',
        card: { id: 'pm_r0' },
        decline: r0,
      }),
      attempt({
        id: 'py_r0_other',
        account: 'acc_decl_2',
        at: '2026-11-04T11:00:00Z',
        card: { id: 'pm_r0' },
      }),
      attempt({ id: 'py_r0_same', account: 'acc_decl_1', at: '2026-11-04T12:00:00Z', card: { id: 'pm_r0' } }),
      attempt({
        id: 'py_r3_1',
        account: 'acc_decl_1',
        at: '2026-11-04T10:00:00Z',
        card: { id: 'pm_r3' },
        decline: r3,
      }),
      attempt({
        id: 'py_r3_other',
        account: 'acc_decl_2',
        at: '2026-11-04T11:00:00Z',
        card: { id: 'pm_r3' },
      }),
    );
    expect(await findingsOf('card_retried_against_advice', 'py_r0_other')).toEqual([]);
    const [same] = await findingsOf('card_retried_against_advice', 'py_r0_same');
    expect(same).toMatchObject({ expected: 'stop_recurring', actual: 'py_r0_1', account_id: 'acc_decl_1' });
    expect(same?.details).toMatchObject({ scope: 'one_recurring_payment', network_error_category: 'R0' });
    const [other] = await findingsOf('card_retried_against_advice', 'py_r3_other');
    expect(other).toMatchObject({
      severity: 'error',
      expected: 'stop_recurring',
      actual: 'py_r3_1',
      account_id: 'acc_decl_2',
    });
    expect(other?.details).toMatchObject({ scope: 'all_merchants', earlier_account_id: 'acc_decl_1' });
  });

  it('a retry delivered before its decline is found once the decline arrives', async () => {
    const card = { id: 'pm_late' };
    await send(attempt({ id: 'py_late_2', at: '2026-11-05T11:00:00Z', card }));
    expect(await findingsOf('card_retried_against_advice', 'py_late_2')).toEqual([]);
    await send(attempt({ id: 'py_late_1', at: '2026-11-05T10:00:00Z', card, decline: DO_NOT_RETRY }));
    expect(
      (await findingsOf('card_retried_against_advice', 'py_late_2')).map((f) => [f.status, f.actual]),
    ).toEqual([['open', 'py_late_1']]);
  });
});

describe('card_declined_repeatedly', () => {
  const declines = (card: string, times: string[]) =>
    times.map((at, index) =>
      attempt({
        id: `py_${card}_${index}`,
        at,
        card: { id: card },
        decline: RETRY_LATER,
        amount: 1000 + index,
      }),
    );

  it('four declines of one card within 24 h raise it on the payment method (warning)', async () => {
    await send(
      ...declines('pm_burst', [
        '2026-11-06T00:00:00Z',
        '2026-11-06T08:00:00Z',
        '2026-11-06T16:00:00Z',
        '2026-11-06T23:59:00Z',
      ]),
    );
    expect(await findingsOf('card_declined_repeatedly', 'pm_burst')).toEqual([
      {
        code: 'card_declined_repeatedly',
        severity: 'warning',
        status: 'open',
        subject_type: 'payment_method',
        subject_id: 'pm_burst',
        account_id: 'acc_decl_1',
        currency: 'usd',
        expected: { declines_within_24h: 3 },
        actual: { declines_within_24h: 4 },
        details: {
          declines: 4,
          alert_count: 3,
          first_declined_at: '2026-11-06T00:00:00.000Z',
          last_declined_at: '2026-11-06T23:59:00.000Z',
          payment_ids: ['py_pm_burst_0', 'py_pm_burst_1', 'py_pm_burst_2', 'py_pm_burst_3'],
          account_ids: ['acc_decl_1'],
          decline_codes: ['insufficient_funds'],
        },
      },
    ]);
  });

  it('four declines spread over 48 h raise nothing', async () => {
    await send(
      ...declines('pm_spread', [
        '2026-11-07T00:00:00Z',
        '2026-11-07T16:00:00Z',
        '2026-11-08T08:00:00Z',
        '2026-11-09T00:00:00Z',
      ]),
    );
    expect(await findingsOf('card_declined_repeatedly', 'pm_spread')).toEqual([]);
  });

  it('the declines delivered in any order give the same finding, once', async () => {
    const bodies = declines('pm_shuffled', [
      '2026-11-10T00:00:00Z',
      '2026-11-10T01:00:00Z',
      '2026-11-10T02:00:00Z',
      '2026-11-10T03:00:00Z',
      '2026-11-10T04:00:00Z',
    ]);
    await send(bodies[4] as string, bodies[0] as string);
    await send(bodies[2] as string, bodies[1] as string, bodies[3] as string);
    const found = await findingsOf('card_declined_repeatedly', 'pm_shuffled');
    expect(found.map((f) => [f.status, f.actual])).toEqual([['open', { declines_within_24h: 5 }]]);
  });
});

describe('the projection', () => {
  it('stores each failed card payment’s classification with it, and gives it a row in payment_declines', async () => {
    const { rows } = await t.pool.query(
      `select p.decline_code, p.network, p.network_error_code, p.network_error_category, p.retry_advice,
              p.advice_scope, p.card_key, p.card_last_four, d.payment_id is not null as listed
         from payments p left join payment_declines d on d.payment_id = p.id
        where p.id in ('py_dnr_1', 'py_dnr_2', 'py_r3_1') order by p.id`,
    );
    expect(rows).toEqual([
      {
        decline_code: 'do_not_retry',
        network: 'MASTERCARD',
        network_error_code: '504',
        network_error_category: '03',
        retry_advice: 'do_not_retry',
        advice_scope: null,
        card_key: 'pm_dnr',
        card_last_four: '4242',
        listed: true,
      },
      {
        decline_code: null,
        network: null,
        network_error_code: null,
        network_error_category: null,
        retry_advice: null,
        advice_scope: null,
        card_key: 'pm_dnr',
        card_last_four: '4242',
        listed: false,
      },
      {
        decline_code: 'generic_decline',
        network: 'VISA',
        network_error_code: '500',
        network_error_category: 'R3',
        retry_advice: 'stop_recurring',
        advice_scope: 'all_merchants',
        card_key: 'pm_r3',
        card_last_four: '4242',
        listed: true,
      },
    ]);
  });
});

describe('alerts', () => {
  it('both codes alert when ALERT_FINDING_CODES names them, the retry with its amount at stake', async () => {
    const env = {
      ALERT_FINDING_CODES: 'card_retried_against_advice,card_declined_repeatedly',
      // Held for a digest, so nothing is sent from this test.
      ALERT_DIGEST_MINUTES: '60',
      DATABASE_URL: t.databaseUrl,
      WEBHOOK_SECRETS: 'whsec_unused_by_this_test_0123456789',
    };
    const context = { ...t, config: loadConfig(env) as Config, now: () => new Date() } as JobContext;
    await alertScan.handle({}, context, 'scan');
    const { rows } = await t.pool.query(
      `select kind, subject_id, payload->'at_stake' as at_stake from alerts order by kind, subject_id`,
    );
    expect(rows.map((row) => [row.kind, row.subject_id])).toEqual([
      ['card_declined_repeatedly', 'pm_burst'],
      ['card_declined_repeatedly', 'pm_shuffled'],
      ['card_retried_against_advice', 'py_dnr_2'],
      ['card_retried_against_advice', 'py_late_2'],
      ['card_retried_against_advice', 'py_r0_same'],
      ['card_retried_against_advice', 'py_r3_other'],
      ['card_retried_against_advice', 'py_same_2'],
    ]);
    expect(rows.find((row) => row.subject_id === 'py_dnr_2')?.at_stake).toBe(7250);
  });
});

describe('tally reprocess --all', () => {
  it('rebuilds every decline’s classification, and the findings stay as they were', async () => {
    const declines = `select p.id, p.decline_code, p.network, p.network_error_code, p.network_error_category,
                              p.retry_advice, p.advice_scope, p.card_key, p.card_last_four, p.card_expiry
                         from payments p join payment_declines d on d.payment_id = p.id order by p.id`;
    const findings = `select id, code, status, subject_id, expected, actual from findings
                       where code like 'card_%' order by id`;
    const before = (await t.pool.query(declines)).rows;
    const findingsBefore = (await t.pool.query(findings)).rows;
    expect(before.length).toBe(19);
    const result = await tallyInProcess(['reprocess', '--all'], { DATABASE_URL: t.databaseUrl });
    expect(result.code).toBe(0);
    await settle(t);
    expect((await t.pool.query(declines)).rows).toEqual(before);
    expect((await t.pool.query(findings)).rows).toEqual(findingsBefore);
  });
});
