import { copyFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/logger.ts';
import { processStoredEvent, processStoredEvents } from '../../src/projection/processStoredEvent.ts';
import { sumDailyPayments } from '../../src/reports/dailyPaymentQueries.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 10, minute)).toISOString();

const payment = (minute: number, fields: Record<string, unknown>) => ({
  id: 'py_totals',
  account_id: 'acc_sub_1',
  amount: 10_000,
  currency: 'usd',
  status: 'succeeded',
  created_at: at(0),
  updated_at: at(minute),
  ...fields,
});
const fee = (id: string, type: string, amount: number, configurationId: string | null) => ({
  id,
  type,
  amount,
  remaining_amount: amount,
  currency: 'usd',
  source_configuration_id: configurationId,
});
const body = (eventName: string, data: object) =>
  JSON.stringify(paymentEvent({ event_name: eventName, data }));

// Delivered in this order: a first fee list, a newer one, an older one arriving late, a newer snapshot
// without a fee list, then a newer one whose fee list is empty.
const FIRST = body(
  'payment.succeeded',
  payment(1, {
    fees: [
      fee('pyfee_t_p', 'processing_fee', 290, 'sfc_card'),
      fee('pyfee_t_plat', 'platform_fee', 125, null),
    ],
  }),
);
const NEWER = body(
  'payment.updated',
  payment(5, {
    fees: [
      fee('pyfee_t_p', 'processing_fee', 291, 'sfc_card'),
      fee('pyfee_t_plat', 'platform_fee', 125, null),
      fee('pyfee_t_ach', 'ach_fee', 7, 'sfc_ach'),
      fee('pyfee_t_misc', 'service_fee', 3, null),
    ],
  }),
);
const OLDER_LATE = body(
  'payment.updated',
  payment(3, { fees: [fee('pyfee_t_old', 'processing_fee', 999, 'sfc_card')] }),
);
const WITHOUT_FEES = body('payment.updated', payment(8, { amount_refunded: 0 }));
const EMPTY_FEES = body('payment.updated', payment(9, { fees: [] }));

const TOTALS = 'fees_total, fees_processing, fees_platform, fees_other, fees_configured, fees_explicit';
const FIRST_TOTALS = {
  fees_total: 415,
  fees_processing: 290,
  fees_platform: 125,
  fees_other: 0,
  fees_configured: 290,
  fees_explicit: 125,
};
const NEWER_TOTALS = {
  fees_total: 426,
  fees_processing: 291,
  fees_platform: 125,
  fees_other: 10,
  fees_configured: 298,
  fees_explicit: 128,
};
const NO_FEES = {
  fees_total: 0,
  fees_processing: 0,
  fees_platform: 0,
  fees_other: 0,
  fees_configured: 0,
  fees_explicit: 0,
};

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((app) => app.close())));

async function appWith(bodies: string[]) {
  const t = await startTestApp();
  apps.push(t);
  await deliver(t.app, bodies);
  const ids = (await t.pool.query('select id from events order by id')).rows.map((row) => row.id as number);
  return { t, ids };
}

async function totalsOf(t: TestApp) {
  const { rows } = await t.pool.query(`select ${TOTALS} from payments where id = 'py_totals'`);
  return rows[0];
}

// The same sums taken from the fee rows stored: what the report joined before it read the totals.
async function totalsOfFeeRows(t: TestApp) {
  const { rows } = await t.pool.query(
    `select coalesce(sum(amount), 0)::bigint as fees_total,
            coalesce(sum(amount) filter (where type = 'processing_fee'), 0)::bigint as fees_processing,
            coalesce(sum(amount) filter (where type = 'platform_fee'), 0)::bigint as fees_platform,
            coalesce(sum(amount) filter (where type not in ('processing_fee', 'platform_fee')), 0)::bigint as fees_other,
            coalesce(sum(amount) filter (where source_configuration_id is not null), 0)::bigint as fees_configured,
            coalesce(sum(amount) filter (where source_configuration_id is null), 0)::bigint as fees_explicit
       from payment_fees where payment_id = 'py_totals'`,
  );
  return rows[0];
}

describe("a payment's fee totals", () => {
  it('follow the fee list shown, snapshot by snapshot, and the daily report sums them', async () => {
    const { t, ids } = await appWith([FIRST, NEWER, OLDER_LATE, WITHOUT_FEES, EMPTY_FEES]);
    const expectedAfterEach = [FIRST_TOTALS, NEWER_TOTALS, NEWER_TOTALS, NEWER_TOTALS, NO_FEES];
    const day = [new Date('2026-11-02T00:00:00Z'), new Date('2026-11-03T00:00:00Z')] as const;
    for (const [index, id] of ids.entries()) {
      await processStoredEvent(t, id);
      const expected = expectedAfterEach[index];
      expect(await totalsOf(t)).toEqual(expected);
      expect(await totalsOfFeeRows(t)).toEqual(expected);
      if (index === 3) {
        // The snapshot without a fee list still won the rest of the payment.
        const { rows } = await t.pool.query(`select amount_refunded from payments where id = 'py_totals'`);
        expect(rows[0].amount_refunded).toBe(0);
      }
      if (index === 2) {
        const [row] = await sumDailyPayments(t.pool, ...day);
        expect(row).toEqual({
          account_type: 'test',
          account_id: 'acc_sub_1',
          currency: 'usd',
          payments: 1,
          gross: 10_000,
          legacy_application_fees: 0,
          fees: 426,
          processing_fees: 291,
          platform_fees: 125,
          other_fees: 10,
          configured_fees: 298,
          explicit_fees: 128,
        });
      }
    }
  });

  it('are those of the newest fee list when the snapshots come in one batch, in any order', async () => {
    const { t, ids } = await appWith([WITHOUT_FEES, OLDER_LATE, NEWER, FIRST]);
    const failures = await processStoredEvents(t, ids);
    expect([...failures.values()]).toEqual([]);
    expect(await totalsOf(t)).toEqual(NEWER_TOTALS);
    expect(await totalsOfFeeRows(t)).toEqual(NEWER_TOTALS);
  });

  it('are 0 for a payment no snapshot of which had a fee list', async () => {
    const { t, ids } = await appWith([WITHOUT_FEES]);
    await processStoredEvent(t, ids[0] as number);
    expect(await totalsOf(t)).toEqual(NO_FEES);
  });

  it('are rebuilt identically by tally reprocess --all', async () => {
    const { t, ids } = await appWith([FIRST, NEWER, OLDER_LATE, WITHOUT_FEES]);
    for (const id of ids) await processStoredEvent(t, id);
    const { rows: before } = await t.pool.query('select to_jsonb(p) as row from payments p');
    expect(before[0].row).toMatchObject(NEWER_TOTALS);
    const result = await tallyInProcess(['reprocess', '--all'], { DATABASE_URL: t.databaseUrl });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { rows: after } = await t.pool.query('select to_jsonb(p) as row from payments p');
    expect(after).toEqual(before);
    expect(await totalsOfFeeRows(t)).toEqual(NEWER_TOTALS);
  });
});

describe('migration 0022', () => {
  it("fills each stored payment's fee totals from its fee rows, and leaves 0 to a payment without any", async () => {
    const url = await createTestDatabase('template0');
    const log = createLogger('silent');
    const before = await mkdtemp(path.join(tmpdir(), 'tally-migrations-'));
    const migrationsDir = path.join(import.meta.dirname, '..', '..', 'migrations');
    for (const migration of await readMigrations()) {
      if (migration.version < 22)
        await copyFile(path.join(migrationsDir, migration.name), path.join(before, migration.name));
    }
    await migrate(url, log, before);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        `insert into payments (id, account_id, account_type, updated_at, event_row_id, snapshot)
         values ('py_fees', 'acc_1', 'live', now(), 1, '{}'), ('py_none', 'acc_1', 'live', now(), 2, '{}');
         insert into payment_fees (id, payment_id, type, amount, source_configuration_id, snapshot_updated_at)
         values ('f1', 'py_fees', 'processing_fee', 290, 'sfc_card', now()),
                ('f2', 'py_fees', 'platform_fee', 125, null, now()),
                ('f3', 'py_fees', 'ach_fee', 7, 'sfc_ach', now()),
                ('f4', 'py_fees', 'service_fee', 3, null, now()),
                ('f5', 'py_fees', 'processing_fee', 1, null, now())`,
      );
      expect(await migrate(url, log)).toContain('0022_payment_fee_totals.sql');
      const { rows } = await client.query(`select id, ${TOTALS} from payments order by id`);
      expect(rows).toEqual([
        {
          id: 'py_fees',
          fees_total: 426,
          fees_processing: 291,
          fees_platform: 125,
          fees_other: 10,
          fees_configured: 297,
          fees_explicit: 129,
        },
        { id: 'py_none', ...NO_FEES },
      ]);
    } finally {
      await client.end();
    }
  });
});
