import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { addDays, businessDate } from '../../src/domain/days.ts';
import { schedulesFor } from '../../src/processes/clock.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, runJobThroughApi, settle } from '../helpers/fixtures.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const ZONE = 'America/New_York';
let t: TestApp;

const succeeded = (id: string, amount: number, createdAt: string) =>
  JSON.stringify(
    paymentEvent({
      account_id: 'acc_ny',
      account_type: 'live',
      event_name: 'payment.succeeded',
      data: {
        id,
        account_id: 'acc_ny',
        amount,
        currency: 'usd',
        status: 'succeeded',
        fee_amount: 0,
        fees: [],
        created_at: createdAt,
        updated_at: createdAt,
      },
    }),
  );

async function dailyGross(date: string): Promise<number> {
  await runJobThroughApi(t, auth, 'daily-report', { date });
  const list = await request(t.app).get('/api/reports?kind=daily').set(auth);
  const report = (await request(t.app).get(`/api/reports/${list.body.data[0].id}.json`).set(auth)).body;
  expect(report).toMatchObject({ date, time_zone: ZONE });
  return report.accounts.find((row: { account_id: string }) => row.account_id === 'acc_ny')?.gross ?? 0;
}

beforeAll(async () => {
  t = await startTestApp({ worker: true, env: { BUSINESS_TIME_ZONE: ZONE } });
  await deliver(t.app, [
    // 31 October, 23:30 in New York (EDT, UTC−4) is 1 November 03:30 UTC.
    succeeded('py_oct31_late', 1_000, '2026-11-01T03:30:00Z'),
    // 1 November is 25 hours long in New York (clocks go back at 02:00): 04:00 UTC to 05:00 UTC next day.
    succeeded('py_nov1_first', 200, '2026-11-01T04:00:00Z'),
    succeeded('py_nov1_last', 30, '2026-11-02T04:59:59Z'),
    succeeded('py_nov2_first', 4, '2026-11-02T05:00:00Z'),
    // 8 March is 23 hours long (clocks go forward): 05:00 UTC to 04:00 UTC next day.
    succeeded('py_mar7_last', 1, '2026-03-08T04:59:59Z'),
    succeeded('py_mar8_first', 10, '2026-03-08T05:00:00Z'),
    succeeded('py_mar8_last', 20, '2026-03-09T03:59:59Z'),
    succeeded('py_mar9_first', 40, '2026-03-09T04:00:00Z'),
  ]);
  await settle(t);
});
afterAll(() => t.close());

describe('business days in America/New_York', () => {
  it('a payment at 23:30 local on 31 October counts on 31 October, not 1 November', async () => {
    expect(await dailyGross('2026-10-31')).toBe(1_000);
  });

  it('the 25-hour day of the autumn change counts all 25 hours and nothing of the next day', async () => {
    expect(await dailyGross('2026-11-01')).toBe(230);
    expect(await dailyGross('2026-11-02')).toBe(4);
  });

  it('the 23-hour day of the spring change counts exactly 23 hours', async () => {
    expect(await dailyGross('2026-03-07')).toBe(1);
    expect(await dailyGross('2026-03-08')).toBe(30);
    expect(await dailyGross('2026-03-09')).toBe(40);
  });

  it('the daily report job reports the business day before now, and its schedule runs in the zone', async () => {
    // 04:30 UTC on 2 November is still 1 November in New York: the day before is 31 October.
    expect(addDays(businessDate(new Date('2026-11-02T04:30:00Z'), ZONE), -1)).toBe('2026-10-31');
    const daily = schedulesFor(t.config).find((schedule) => schedule.job === 'daily-report');
    expect(daily).toEqual({ job: 'daily-report', cron: '15 0 * * *', timezone: ZONE });
    const sweep = schedulesFor(t.config).find((schedule) => schedule.job === 'missed-event-sweep');
    expect(sweep?.timezone).toBe('UTC');
  });
});

describe('BUSINESS_TIME_ZONE at boot', () => {
  it('defaults to UTC and refuses an unknown zone, naming the setting', () => {
    expect(loadConfig({}).BUSINESS_TIME_ZONE).toBe('UTC');
    expect(() => loadConfig({ BUSINESS_TIME_ZONE: 'Mars/Olympus_Mons' })).toThrow(
      /BUSINESS_TIME_ZONE: is not a known IANA time zone/,
    );
  });
});
