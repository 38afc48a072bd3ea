import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import reconcilePaymentsJob from '../../jobs/reconcile-payments.ts';
import { insertFeeConfigurations, upsertFeeSync } from '../../src/feeConfigurations/queries.ts';
import type { JobContext } from '../../src/queue/job.ts';
import { reconcileEachPayment, reconcilePayments } from '../../src/reconciliation/reconcilePayment.ts';
import { markPaymentsProjected } from '../../src/reconciliation/stateQueries.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { configuration, t } from './fixtures.ts';

const NOW = t('2024-07-01T00:00:00Z');
const seen = (account: string) => `'${account}', 'live', '2024-06-20T00:00:00Z', 1, '{}'`;
const PAYMENTS = [
  'py_fees',
  'py_refunded',
  'py_checkout',
  'py_disputed',
  'py_dispute_first',
  'py_none',
  'py_ach',
  'py_other_account',
];

// Payments of three sub accounts (two synced, each with its own fee configuration), with what makes every
// kind of rule report: fees off the configuration, a refund over the amount and an unknown returned fee, fees
// set on a checkout that never arrived, disputes (one before its payment), an ACH return; and findings an
// earlier run left behind: one the data no longer supports (resolved) and an accepted one whose actual value
// changed (superseded).
async function seed(pool: pg.Pool): Promise<void> {
  await pool.query(`
    insert into payments (id, account_id, account_type, updated_at, event_row_id, snapshot, amount, currency, status,
                          method_kind, card_brand, fee_amount, checkout_id, created_at, returned, error_code,
                          succeeded_at, failed_at)
    values ('py_fees', ${seen('acc_1')}, 12345, 'usd', 'succeeded', 'card', 'visa', 400, null,
            '2024-06-15T12:00:00Z', null, null, '2024-06-15T12:00:01Z', null),
           ('py_refunded', ${seen('acc_1')}, 1000, 'usd', 'succeeded', 'card', 'visa', 58, null,
            '2024-06-15T12:00:00Z', null, null, '2024-06-15T12:00:01Z', null),
           ('py_checkout', ${seen('acc_2')}, 500, 'eur', 'succeeded', 'card', 'visa', null, 'cho_1',
            '2024-06-15T12:00:00Z', null, null, '2024-06-15T12:00:01Z', null),
           ('py_disputed', ${seen('acc_2')}, 700, 'eur', 'succeeded', 'card', 'visa', null, null,
            '2024-06-15T12:00:00Z', null, null, '2024-06-15T12:00:01Z', null),
           ('py_ach', ${seen('acc_1')}, 2500, 'usd', 'failed', 'ach', null, 0, null,
            '2024-06-15T12:00:00Z', true, 'R01', '2024-06-16T12:00:00Z', '2024-06-18T12:00:00Z'),
           ('py_other_account', ${seen('acc_3')}, 10000, 'usd', 'succeeded', 'card', 'visa', 330, null,
            '2024-06-15T12:00:00Z', null, null, '2024-06-15T12:00:01Z', null);
    insert into payment_fees (id, payment_id, type, amount, remaining_amount, source_configuration_id,
                              source_fee_type, snapshot_updated_at)
    values ('pyfee_1', 'py_fees', 'processing_fee', 400, null, 'sfc_visa', 'visa_brand_ecomm', '2024-06-20T00:00:00Z'),
           ('pyfee_2', 'py_refunded', 'processing_fee', 58, 50, 'sfc_visa', 'visa_brand_ecomm', '2024-06-20T00:00:00Z'),
           ('pyfee_3', 'py_other_account', 'processing_fee', 330, null, 'sfc_visa_3', 'visa_brand_ecomm',
            '2024-06-20T00:00:00Z');
    insert into refunds (id, payment_id, updated_at, event_row_id, snapshot, amount, status, created_at)
    values ('re_1', 'py_refunded', '2024-06-19T00:00:00Z', 2, '{}', 1200, 'succeeded', '2024-06-18T00:00:00Z');
    insert into returned_fees (id, refund_id, payment_fee_id, returned_amount, original_amount, remaining_amount)
    values ('rtfee_1', 're_1', 'pyfee_9', 5, 64, 59);
    insert into checkouts (id, account_id, account_type, updated_at, event_row_id, snapshot, fees)
    values ('cho_1', ${seen('acc_2')}, '[{"type": "app_fee", "amount": 3}]');
    insert into disputes (id, payment_id, account_id, account_type, updated_at, event_row_id, snapshot, amount,
                          currency, reason, due_date, status)
    values ('dp_1', 'py_disputed', ${seen('acc_2')}, 700, 'eur', 'fraudulent', '2024-07-10', 'lost'),
           ('dp_2', 'py_dispute_first', ${seen('acc_2')}, 900, 'eur', null, '2024-07-12', 'needs_response');
    insert into findings (code, severity, status, subject_type, subject_id, account_id, currency, expected, actual,
                          scope, first_seen_at, last_seen_at)
    values ('fee_total_mismatch', 'error', 'open', 'payment', 'py_ach', 'acc_1', 'usd', '1', '2',
            'payment:py_ach', '2024-06-01T00:00:00Z', '2024-06-01T00:00:00Z'),
           ('refund_exceeds_payment', 'error', 'accepted', 'payment', 'py_refunded', 'acc_1', 'usd', '1000', '1100',
            'payment:py_refunded', '2024-06-01T00:00:00Z', '2024-06-01T00:00:00Z');
  `);
  await insertFeeConfigurations(
    pool,
    [
      configuration('sfc_visa', 'visa_brand_ecomm', '2.75', 30, null, '2024-01-01T00:00:00Z', null),
      // acc_3's own: its payment's fee is right under it and wrong under acc_1's.
      {
        ...configuration('sfc_visa_3', 'visa_brand_ecomm', '3', 30, null, '2024-01-01T00:00:00Z', null),
        accountId: 'acc_3',
      },
    ],
    NOW,
  );
  await upsertFeeSync(pool, 'acc_1', NOW);
  await upsertFeeSync(pool, 'acc_3', NOW);
  await markPaymentsProjected(pool, PAYMENTS);
  await markPaymentsProjected(pool, ['py_fees']);
}

// Everything a reconciliation records, without the ids the database assigns.
async function recorded(pool: pg.Pool) {
  const query = async (sql: string) => (await pool.query(sql)).rows;
  return {
    findings: await query(
      `select code, severity, status, subject_type, subject_id, account_id, currency, expected, actual, details,
              scope, first_seen_at, last_seen_at, resolved_at
         from findings order by code, subject_id, status`,
    ),
    history: await query(
      `select f.code, f.subject_id, h.actor, h.action, h.old_status, h.new_status, h.note, h.created_at
         from finding_history h join findings f on f.id = h.finding_id order by f.code, f.subject_id, h.action`,
    ),
    states: await query(
      `select payment_id, projected_version, reconciled_version, unreconciled_since, reconciled_at
         from payment_reconciliation_states order by payment_id`,
    ),
    reconciliations: await query(`select * from payment_reconciliations order by payment_id`),
  };
}

let batched: pg.Pool;
let oneByOne: pg.Pool;

beforeAll(async () => {
  batched = new pg.Pool({ connectionString: await createTestDatabase() });
  oneByOne = new pg.Pool({ connectionString: await createTestDatabase() });
  await Promise.all([seed(batched), seed(oneByOne)]);
});
afterAll(async () => {
  await Promise.all([batched.end(), oneByOne.end()]);
});

describe('reconcilePayments, many payments at once', () => {
  it('records exactly what reconciling them one at a time records', async () => {
    await reconcilePayments(batched, [...PAYMENTS].reverse(), NOW);
    for (const paymentId of PAYMENTS) await reconcilePayments(oneByOne, [paymentId], NOW);

    const result = await recorded(batched);
    expect(result).toEqual(await recorded(oneByOne));
    // The cases above all reported, so the comparison covers every kind of rule and change.
    expect(result.findings.map((finding) => [finding.code, finding.subject_id, finding.status])).toEqual([
      ['ach_return', 'py_ach', 'open'],
      ['checkout_fee_mismatch', 'cho_1', 'open'],
      ['dispute_lost', 'dp_1', 'open'],
      ['dispute_open', 'dp_2', 'open'],
      ['fee_amount_mismatch', 'pyfee_1', 'open'],
      ['fee_remaining_mismatch', 'pyfee_2', 'open'],
      ['fee_total_mismatch', 'py_ach', 'resolved'],
      ['refund_exceeds_payment', 'py_refunded', 'open'],
      ['refund_exceeds_payment', 'py_refunded', 'resolved'],
      ['returned_fee_unknown', 're_1', 'open'],
    ]);
    expect(result.history.map((entry) => [entry.subject_id, entry.action])).toEqual([
      ['py_ach', 'resolve'],
      ['py_refunded', 'supersede'],
    ]);
    expect(result.states.every((state) => state.reconciled_version === state.projected_version)).toBe(true);
    expect(result.states.find((state) => state.payment_id === 'py_fees')?.reconciled_version).toBe(2);
  });

  it('two payments reporting one finding (a checkout shared by both) are recorded one at a time', async () => {
    await batched.query(`update payments set checkout_id = 'cho_1' where id = 'py_disputed'`);
    await markPaymentsProjected(batched, ['py_checkout', 'py_disputed']);
    expect(await reconcileEachPayment(batched, ['py_checkout', 'py_disputed'], NOW)).toEqual([null, null]);
    const { rows } = await batched.query(
      `select payment_id from payment_reconciliation_states
        where payment_id in ('py_checkout', 'py_disputed') and reconciled_version = projected_version`,
    );
    expect(rows).toHaveLength(2);
  });

  it('a payment that fails alone fails its job, naming it; the others of its fetch are recorded', async () => {
    await batched.query(`
      create function refuse_poison() returns trigger language plpgsql as $$
        begin raise exception 'refused %', new.payment_id; end $$;
      create trigger refuse_poison before insert or update on payment_reconciliations
        for each row when (new.payment_id = 'py_refunded') execute function refuse_poison();
    `);
    await markPaymentsProjected(batched, ['py_fees', 'py_refunded']);
    const context = {
      pool: batched,
      now: () => NOW,
      config: { DECLINE_ALERT_COUNT: 3 },
    } as unknown as JobContext;
    const errors = await reconcilePaymentsJob.handleBatch(
      [{ payment_ids: ['py_fees', 'py_refunded'] }, { payment_ids: ['py_fees'] }],
      context,
    );
    expect(errors.map(String)).toEqual([
      'Error: 1 of 2 payments not reconciled; py_refunded: error: refused py_refunded',
      'null',
    ]);
    const { rows } = await batched.query(
      `select payment_id, reconciled_version = projected_version as reconciled from payment_reconciliation_states
        where payment_id in ('py_fees', 'py_refunded') order by payment_id`,
    );
    expect(rows).toEqual([
      { payment_id: 'py_fees', reconciled: true },
      { payment_id: 'py_refunded', reconciled: false },
    ]);
  });
});
