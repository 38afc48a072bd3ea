import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAccountLedger } from '../../src/payouts/listLedger.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The ledger listing's schedule and bookkeeping against real Postgres, with a provider that hands out the
// lines a test gives it: in full first and once a day, otherwise from the newest line held less a day.
const ACCOUNT = 'acc_ledger';
let t: TestApp;
let clock = new Date('2026-11-03T12:00:00Z');
let lines: Record<string, unknown>[] = [];
const asked: (string | null)[] = [];

const line = (id: string, createdAt: string, payoutId: string | null = null) => ({
  id,
  account_id: ACCOUNT,
  payout_id: payoutId,
  amount: 1_000,
  fee: 30,
  currency: 'USD',
  txn_type: 'seller_payment',
  source_id: `py_${id}`,
  source_type: 'payment',
  source_payment_id: `py_${id}`,
  created_at: createdAt,
});

const client = {
  async *ledgerPages(_account: string, createdAfter: Date | null) {
    asked.push(createdAfter?.toISOString() ?? null);
    yield lines.filter(
      (row) => !createdAfter || Date.parse(row.created_at as string) > createdAfter.getTime(),
    );
  },
};

const list = () => listAccountLedger({ pool: t.pool, client, log: t.log, now: () => clock }, ACCOUNT);
const stored = async () =>
  (
    await t.pool.query(
      'select id, payout_id, net::int, currency from provider_ledger_lines where account_id = $1 order by id',
      [ACCOUNT],
    )
  ).rows;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('listing a sub account’s ledger', () => {
  it('lists in full first, stores each line normalized, then lists from the newest line less a day', async () => {
    lines = [line('b', '2026-11-02T10:00:00Z'), line('a', '2026-10-20T10:00:00Z')];
    expect(await list()).toEqual({ listed: true, full: true });
    expect(await stored()).toEqual([
      { id: 'a', payout_id: null, net: 970, currency: 'usd' },
      { id: 'b', payout_id: null, net: 970, currency: 'usd' },
    ]);
    clock = new Date('2026-11-03T13:00:00Z');
    lines = [line('c', '2026-11-03T12:30:00Z'), line('b', '2026-11-02T10:00:00Z', 'po_1'), ...lines.slice(1)];
    expect(await list()).toEqual({ listed: true, full: false });
    expect(asked).toEqual([null, '2026-11-01T10:00:00.000Z']);
    expect(await stored()).toEqual([
      { id: 'a', payout_id: null, net: 970, currency: 'usd' },
      { id: 'b', payout_id: 'po_1', net: 970, currency: 'usd' },
      { id: 'c', payout_id: null, net: 970, currency: 'usd' },
    ]);
  });

  it('lists in full again a day after the last full listing, dropping the lines the provider no longer shows', async () => {
    clock = new Date('2026-11-04T12:00:00Z');
    lines = lines.filter((row) => row.id !== 'a');
    expect(await list()).toEqual({ listed: true, full: true });
    expect(asked.at(-1)).toBeNull();
    expect((await stored()).map((row) => row.id)).toEqual(['b', 'c']);
  });

  it('keeps the previous listing whole when a page is malformed, and records the failure until one completes', async () => {
    clock = new Date('2026-11-04T13:00:00Z');
    lines = [
      line('d', '2026-11-04T12:30:00Z'),
      { id: 'bt_broken', txn_type: 'seller_payment', created_at: '2026-11-04T12:00:00Z' },
      ...lines,
    ];
    expect(await list()).toEqual({ listed: false, full: false });
    expect((await stored()).map((row) => row.id)).toEqual(['b', 'c']);
    const failed = await t.pool.query(
      'select listed_at, failed_at, error from provider_ledger_listings where account_id = $1',
      [ACCOUNT],
    );
    expect(failed.rows).toEqual([
      {
        listed_at: new Date('2026-11-04T12:00:00Z'),
        failed_at: new Date('2026-11-04T13:00:00Z'),
        error: expect.stringMatching(/^line 1 of the page is malformed: /),
      },
    ]);
    clock = new Date('2026-11-04T14:00:00Z');
    lines = lines.filter((row) => row.id !== 'bt_broken');
    expect(await list()).toEqual({ listed: true, full: false });
    const listed = await t.pool.query(
      'select listed_at, failed_at, error, lines from provider_ledger_listings where account_id = $1',
      [ACCOUNT],
    );
    expect(listed.rows).toEqual([
      { listed_at: new Date('2026-11-04T14:00:00Z'), failed_at: null, error: null, lines: 3 },
    ]);
  });
});
