import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertFeeConfigurations, upsertFeeSync } from '../../src/feeConfigurations/queries.ts';
import { loadPaymentFacts } from '../../src/reconciliation/queries.ts';
import { reconcilePayments } from '../../src/reconciliation/reconcilePayment.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { configuration, t } from './fixtures.ts';

let pool: pg.Pool;
const NOW = t('2024-07-01T00:00:00Z');
const visa = configuration('sfc_visa', 'visa_brand_ecomm', '2.75', 30, null, '2024-01-01T00:00:00Z', null);

// Rows as the projection leaves them; `snapshot` and the ordering columns are not read by reconciliation.
const seen = `'acc_1', 'live', '2024-06-20T00:00:00Z', 1, '{}'`;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  await pool.query(`
    insert into payments (id, account_id, account_type, updated_at, event_row_id, snapshot, amount, currency, status,
                          method_kind, card_brand, fee_amount, application_fee_amount, checkout_id, created_at,
                          returned, error_code, succeeded_at)
    values ('py_1', ${seen}, 1234, 'usd', 'succeeded', 'card', 'visa', 70, null, 'cho_1',
            '2024-06-15T12:00:00.123Z', null, null, '2024-06-15T12:00:01Z');
    insert into payment_fees (id, payment_id, type, amount, remaining_amount, source_configuration_id,
                              source_fee_type, snapshot_updated_at)
    values ('pyfee_1', 'py_1', 'processing_fee', 64, 59, 'sfc_visa', 'visa_brand_ecomm', '2024-06-20T00:00:00Z'),
           ('pyfee_2', 'py_1', 'platform_fee', 6, null, null, null, '2024-06-20T00:00:00Z');
    insert into refunds (id, payment_id, updated_at, event_row_id, snapshot, amount, status, created_at)
    values ('re_1', 'py_1', '2024-06-19T00:00:00Z', 2, '{}', 100, 'succeeded', '2024-06-18T00:00:00Z'),
           ('re_2', 'py_1', '2024-06-17T00:00:00Z', 3, '{}', 200, 'pending', '2024-06-16T00:00:00Z');
    insert into returned_fees (id, refund_id, payment_fee_id, returned_amount, original_amount, remaining_amount)
    values ('rtfee_2', 're_1', 'pyfee_1', 5, 64, 59), ('rtfee_1', 're_1', 'pyfee_2', 1, 6, null);
    insert into checkouts (id, account_id, account_type, updated_at, event_row_id, snapshot, fees)
    values ('cho_1', ${seen},
            '[{"type": "platform_fee", "amount": 6}, {"type": "app_fee", "amount": 3}, {"type": "tip_fee", "amount": 1}]');
    insert into disputes (id, payment_id, account_id, account_type, updated_at, event_row_id, snapshot, amount,
                          currency, reason, due_date, status)
    values ('dp_2', 'py_1', ${seen}, 700, 'usd', 'fraudulent', '2024-07-10', 'lost'),
           ('dp_1', 'py_1', ${seen}, 500, 'usd', null, null, 'needs_response'),
           ('dp_9', 'py_unknown', ${seen}, 900, 'usd', 'duplicate', '2024-07-12', 'under_review');
  `);
});
afterAll(async () => {
  await pool.end();
});

describe('loadPaymentFacts', () => {
  it('loads a payment with its fees, refunds, returned fees, checkout fees and disputes, typed', async () => {
    const facts = (await loadPaymentFacts(pool, ['py_1'])).get('py_1');
    expect(facts).toEqual({
      payment: {
        id: 'py_1',
        accountId: 'acc_1',
        currency: 'usd',
        amount: 1234,
        status: 'succeeded',
        feeAmount: 70,
        applicationFeeAmount: null,
        createdAt: t('2024-06-15T12:00:00.123Z'),
        methodKind: 'card',
        cardBrand: 'visa',
        expedited: false,
        returned: false,
        errorCode: null,
        errorDescription: null,
        succeededAt: t('2024-06-15T12:00:01Z'),
        failedAt: null,
      },
      // By type, then id (here not the id order).
      fees: [
        {
          id: 'pyfee_2',
          type: 'platform_fee',
          amount: 6,
          remainingAmount: null,
          sourceConfigurationId: null,
          sourceFeeType: null,
          snapshotUpdatedAt: t('2024-06-20T00:00:00Z'),
        },
        {
          id: 'pyfee_1',
          type: 'processing_fee',
          amount: 64,
          remainingAmount: 59,
          sourceConfigurationId: 'sfc_visa',
          sourceFeeType: 'visa_brand_ecomm',
          snapshotUpdatedAt: t('2024-06-20T00:00:00Z'),
        },
      ],
      // In creation order (here not the id order), each with its own returned fees by id.
      refunds: [
        {
          id: 're_2',
          amount: 200,
          status: 'pending',
          createdAt: t('2024-06-16T00:00:00Z'),
          updatedAt: t('2024-06-17T00:00:00Z'),
          returnedFees: [],
        },
        {
          id: 're_1',
          amount: 100,
          status: 'succeeded',
          createdAt: t('2024-06-18T00:00:00Z'),
          updatedAt: t('2024-06-19T00:00:00Z'),
          returnedFees: [
            {
              id: 'rtfee_1',
              paymentFeeId: 'pyfee_2',
              returnedAmount: 1,
              originalAmount: 6,
              remainingAmount: null,
            },
            {
              id: 'rtfee_2',
              paymentFeeId: 'pyfee_1',
              returnedAmount: 5,
              originalAmount: 64,
              remainingAmount: 59,
            },
          ],
        },
      ],
      checkout: {
        id: 'cho_1',
        fees: [
          { type: 'platform_fee', amount: 6 },
          { type: 'app_fee', amount: 3 },
          { type: 'tip_fee', amount: 1 },
        ],
      },
      disputes: [
        {
          id: 'dp_1',
          paymentId: 'py_1',
          accountId: 'acc_1',
          amount: 500,
          currency: 'usd',
          reason: null,
          dueDate: null,
          status: 'needs_response',
        },
        {
          id: 'dp_2',
          paymentId: 'py_1',
          accountId: 'acc_1',
          amount: 700,
          currency: 'usd',
          reason: 'fraudulent',
          dueDate: '2024-07-10',
          status: 'lost',
        },
      ],
      // Never synced: the fee checks that need configurations are counted, not made.
      configurations: null,
      earlierDeclines: [],
    });
  });

  it('loads the sub account’s fee configurations once they have been synced, the rate exact', async () => {
    const configurations = async () => {
      const facts = (await loadPaymentFacts(pool, ['py_1'])).get('py_1');
      return facts?.payment ? facts.configurations : 'payment unknown';
    };
    await insertFeeConfigurations(pool, [visa], NOW);
    expect(await configurations()).toBeNull();
    await upsertFeeSync(pool, 'acc_1', NOW);
    expect(await configurations()).toEqual([visa]);
  });

  it('a payment not projected yet has only its disputes', async () => {
    expect((await loadPaymentFacts(pool, ['py_unknown'])).get('py_unknown')).toEqual({
      payment: null,
      disputes: [
        {
          id: 'dp_9',
          paymentId: 'py_unknown',
          accountId: 'acc_1',
          amount: 900,
          currency: 'usd',
          reason: 'duplicate',
          dueDate: '2024-07-12',
          status: 'under_review',
        },
      ],
    });
  });
});

describe('reconcilePayments', () => {
  const openFindings = async (scope: string) =>
    (
      await pool.query<{ code: string; subject_id: string; severity: string; account_id: string }>(
        `select code, subject_id, severity, account_id from findings
          where scope = $1 and status = 'open' order by code, subject_id`,
        [scope],
      )
    ).rows;

  it('records the findings of every rule for a known payment, and what it could not check', async () => {
    await reconcilePayments(pool, ['py_1'], NOW);
    expect(await openFindings('payment:py_1')).toEqual([
      // app_fee and tip_fee were set on the checkout and never reached the payment.
      { code: 'checkout_fee_mismatch', subject_id: 'cho_1', severity: 'error', account_id: 'acc_1' },
      { code: 'dispute_lost', subject_id: 'dp_2', severity: 'error', account_id: 'acc_1' },
      { code: 'dispute_open', subject_id: 'dp_1', severity: 'warning', account_id: 'acc_1' },
    ]);
    const { rows } = await pool.query(
      `select overrides, unverified from payment_reconciliations where payment_id = 'py_1'`,
    );
    expect(rows).toEqual([{ overrides: 1, unverified: 0 }]);
  });

  it('records the findings of disputes whose payment is not known yet', async () => {
    await reconcilePayments(pool, ['py_unknown'], NOW);
    expect(await openFindings('payment:py_unknown')).toEqual([
      { code: 'dispute_open', subject_id: 'dp_9', severity: 'warning', account_id: 'acc_1' },
    ]);
  });

  it('an id with neither a payment nor disputes records nothing', async () => {
    await reconcilePayments(pool, ['py_nothing'], NOW);
    expect(await openFindings('payment:py_nothing')).toEqual([]);
  });
});
