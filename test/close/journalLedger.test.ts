import { parse } from 'csv-parse/sync';
import { parse as parseHtml } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, settle } from '../helpers/fixtures.ts';
import { insertPayouts } from '../payouts/payoutRows.ts';

// What reaches the general ledger in New York: a CAD month beside a USD one (LEDGER_CURRENCY usd), and payouts
// of a live account, a test-mode account, an account whose payout delivery said test, and one nothing states.
const auth = { Authorization: `Bearer ${API_TOKEN}` };
let t: TestApp;

const sale = (account: string, mode: 'live' | 'test', id: string, amount: number, currency: string) =>
  JSON.stringify(
    paymentEvent({
      account_id: account,
      account_type: mode,
      event_name: 'payment.succeeded',
      data: {
        id,
        account_id: account,
        amount,
        currency,
        status: 'succeeded',
        capture_strategy: 'automatic',
        fee_amount: 0,
        fees: [],
        created_at: '2026-10-05T15:00:00Z',
        updated_at: '2026-10-05T15:00:00Z',
      },
    }),
  );

beforeAll(async () => {
  t = await startTestApp({
    worker: true,
    env: {
      BUSINESS_TIME_ZONE: 'America/New_York',
      LEDGER_ACCOUNTS: '{"clearing":"1150","clearing.cad":"1151","netsuite":{"sales.cad":"4001 Sales CA"}}',
    },
  });
  await deliver(t.app, [
    sale('acc_us', 'live', 'py_us', 10_000, 'usd'),
    sale('acc_ca', 'live', 'py_ca', 20_000, 'cad'),
    sale('acc_test', 'test', 'py_test_mode', 30_000, 'usd'),
    // A payout delivery (projected as the payout) of an account Tally has no payment of: its envelope states the
    // account's mode.
    JSON.stringify(
      paymentEvent({
        account_id: 'acc_stated',
        account_type: 'test',
        event_name: 'payout.paid',
        data: {
          id: 'po_stated',
          account_id: 'acc_stated',
          amount: 500,
          currency: 'usd',
          status: 'paid',
          created_at: '2026-10-22T15:00:00Z',
          updated_at: '2026-10-22T15:00:00Z',
        },
      }),
    ),
  ]);
  await settle(t);
  const day = (n: number) => `2026-10-${n}T15:00:00Z`;
  await insertPayouts(t.pool, [
    { id: 'po_us', account_id: 'acc_us', amount: 10_000, created_at: day(20) },
    { id: 'po_test', account_id: 'acc_test', amount: 30_000, created_at: day(21) },
    // Stored from the payout sync's own snapshot: no event the provider sent says test or live.
    { id: 'po_nomode', account_id: 'acc_nomode', amount: 700, created_at: day(23), event_row_id: 0 },
  ]);
}, 60_000);
afterAll(() => t.close());

const journal = (query: string) => request(t.app).get(`/api/periods/2026-10/journal?${query}`).set(auth);
const rowsOf = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

describe('one currency per importer', () => {
  it.each(['xero', 'quickbooks'])(
    '%s refuses CAD with 422, naming it and the formats that carry one',
    async (format) => {
      const response = await journal(`format=${format}&currency=cad`);
      expect(response.status).toBe(422);
      expect(response.body.error).toEqual({
        code: 'currency_not_supported',
        message: `currency: ${format} books every amount in the ledger's base currency (USD), so a journal in CAD is refused; csv and netsuite carry each line's currency`,
      });
    },
  );

  it('xero and quickbooks still serve the base currency', async () => {
    const xero = await journal('format=xero&currency=usd');
    expect(xero.status).toBe(200);
    expect(rowsOf(xero.text).map((row) => row['*AccountCode'])).toEqual([
      '1150',
      'sales',
      'in_transit',
      '1150',
    ]);
    expect((await journal('format=quickbooks&currency=usd')).status).toBe(200);
  });

  it('netsuite and csv carry CAD on its own lines, with clearing.cad and a per-format per-currency key', async () => {
    const netsuite = rowsOf((await journal('format=netsuite')).text);
    expect(netsuite.filter((row) => row.Currency === 'CAD')).toEqual([
      expect.objectContaining({
        'External ID': 'tally-2026-10-cad-20261005-sale',
        Account: '1151',
        Debit: '200.00',
      }),
      expect.objectContaining({
        'External ID': 'tally-2026-10-cad-20261005-sale',
        Account: '4001 Sales CA',
        Credit: '200.00',
      }),
    ]);
    const csv = rowsOf((await journal('format=csv')).text);
    expect(csv.filter((row) => row.currency === 'CAD').map((row) => [row.entry, row.account])).toEqual([
      ['tally-2026-10-cad-20261005-sale', '1151'],
      ['tally-2026-10-cad-20261005-sale', 'sales'],
    ]);
    expect(csv.find((row) => row.entry === 'tally-2026-10-usd-20261005-sale')?.account).toBe('1150');
  });
});

describe('test money', () => {
  it('journals the live payout only: not a test-mode account’s, one whose delivery said test, nor an unknown one', async () => {
    const references = new Set(rowsOf((await journal('format=csv')).text).map((row) => row.reference));
    expect(references).toContain('po_us');
    for (const payout of ['po_test', 'po_stated', 'po_nomode']) expect(references).not.toContain(payout);
    const report = (await request(t.app).get('/api/periods/2026-10').set(auth)).body.data;
    const modes = report.accounts.map((row: { account_type: string; account_id: string }) => [
      row.account_id,
      row.account_type,
    ]);
    expect(modes).toEqual(
      expect.arrayContaining([
        ['acc_test', 'test'],
        ['acc_stated', 'test'],
        ['acc_nomode', 'unknown'],
      ]),
    );
  });

  it('lists the payout whose mode Tally cannot tell as payout_mode_unknown in the open items', async () => {
    const report = (await request(t.app).get('/api/periods/2026-10').set(auth)).body.data;
    expect(report.open_items.payout_mode_unknown).toEqual([
      {
        payout_id: 'po_nomode',
        account_id: 'acc_nomode',
        currency: 'usd',
        day: '2026-10-23',
        kind: 'payout',
        amount: 700,
      },
    ]);
    const html = parseHtml((await request(t.app).get('/api/periods/2026-10.html').set(auth)).text);
    // The last section of the page, since it is listed only when such a payout exists.
    expect(html.querySelectorAll('h2').at(-1)?.textContent).toBe('Payouts whose mode is unknown');
    const rows = html.querySelectorAll('table').at(-1)?.querySelectorAll('tbody tr');
    expect(rows?.map((row) => row.querySelectorAll('td').map((td) => td.textContent))).toEqual([
      ['po_nomode', 'acc_nomode', '23 Oct 2026', 'payout', '$7.00'],
    ]);
  });
});
