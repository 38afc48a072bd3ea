import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { createProviderClient, ProviderError } from '../../src/provider/client.ts';
import { PROVIDER_CLIENT, startSimulator } from '../helpers/simulator.ts';

// The provider client's payout endpoints against the simulator on a real port: filters, the Sub-Account
// header, cursor pagination over every page, and retries with back-off on 429 and 5xx.

const ACCOUNT = 'acc_payout_client';
const OTHER_ACCOUNT = 'acc_payout_other';
let provider: Awaited<ReturnType<typeof startSimulator>>;
let sleeps: number[];

const client = (maxAttempts = 4) =>
  createProviderClient({
    baseUrl: provider.baseUrl,
    clientId: PROVIDER_CLIENT.id,
    clientSecret: PROVIDER_CLIENT.secret,
    log: createLogger('silent'),
    maxAttempts,
    baseDelayMs: 10,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });

const payout = (id: string, created: string, depositsAt: string) => ({
  id,
  account_id: ACCOUNT,
  amount: 1000,
  currency: 'usd',
  status: 'paid',
  deposits_at: depositsAt,
  created_at: created,
  updated_at: created,
});
const lines = (payoutId: string, count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: `bt_${payoutId}_${String(index).padStart(3, '0')}`,
    payout_id: payoutId,
    amount: -index,
    currency: 'usd',
    txn_type: 'processing_fee',
  }));

async function all(pages: AsyncGenerator<unknown[]>) {
  const sizes: number[] = [];
  const items: unknown[] = [];
  for await (const page of pages) {
    sizes.push(page.length);
    items.push(...page);
  }
  return { sizes, ids: items.map((item) => (item as { id: string }).id) };
}

beforeAll(async () => {
  provider = await startSimulator();
  provider.simulator.putPayout(
    payout('po_old', '2026-10-01T00:00:00Z', '2026-10-03T00:00:00Z'),
    lines('po_old', 3),
  );
  provider.simulator.putPayout(
    payout('po_mid', '2026-10-10T00:00:00Z', '2026-10-12T00:00:00Z'),
    lines('po_mid', 250),
  );
  provider.simulator.putPayout(payout('po_new', '2026-10-20T00:00:00Z', '2026-10-22T00:00:00Z'), []);
  provider.simulator.putPayout({
    ...payout('po_elsewhere', '2026-10-15T00:00:00Z', '2026-10-16T00:00:00Z'),
    account_id: OTHER_ACCOUNT,
  });
});
afterAll(() => provider.close());
beforeEach(() => {
  sleeps = [];
});

describe('payoutPages', () => {
  it("lists the sub account's payouts newest first, filtered by creation and deposit, with the Sub-Account header", async () => {
    expect(await all(client().payoutPages(ACCOUNT))).toEqual({
      sizes: [3],
      ids: ['po_new', 'po_mid', 'po_old'],
    });
    expect(
      await all(client().payoutPages(ACCOUNT, { createdAfter: new Date('2026-10-05T00:00:00Z') })),
    ).toEqual({
      sizes: [2],
      ids: ['po_new', 'po_mid'],
    });
    const deposits = {
      depositsAfter: new Date('2026-10-03T00:00:00Z'),
      depositsBefore: new Date('2026-10-22T00:00:00Z'),
    };
    expect((await all(client().payoutPages(ACCOUNT, deposits))).ids).toEqual(['po_mid', 'po_old']);
    expect((await all(client().payoutPages(OTHER_ACCOUNT))).ids).toEqual(['po_elsewhere']);
    expect(provider.simulator.requests).toContain('GET /v1/payouts');
  });
});

describe('balanceTransactionPages', () => {
  it('follows the cursor through every page of a payout of 250 lines', async () => {
    const { sizes, ids } = await all(client().balanceTransactionPages('po_mid', ACCOUNT));
    expect(sizes).toEqual([100, 100, 50]);
    expect(new Set(ids).size).toBe(250);
    expect(ids[0]).toBe('bt_po_mid_000');
    expect(ids[249]).toBe('bt_po_mid_249');
  });

  it('retries a 429 and a 503 mid-way with back-off, repeating only the page that failed', async () => {
    const pages = client().balanceTransactionPages('po_mid', ACCOUNT);
    const sizes: number[] = [];
    const before = provider.simulator.requests.length;
    for await (const page of pages) {
      sizes.push(page.length);
      if (sizes.length === 1) {
        provider.simulator.failNext(1, 429, 'gateway_rate_limit_error');
        provider.simulator.failNext(1, 503);
      }
    }
    expect(sizes).toEqual([100, 100, 50]);
    expect(sleeps).toHaveLength(2);
    const listed = provider.simulator.requests
      .slice(before)
      .filter((r) => r === 'GET /v1/balance_transactions');
    expect(listed).toHaveLength(5);
  });

  it('gives up after its attempts with the provider error, having yielded the pages before', async () => {
    const pages = client(2).balanceTransactionPages('po_mid', ACCOUNT);
    const sizes: number[] = [];
    const failure = await (async () => {
      try {
        for await (const page of pages) {
          sizes.push(page.length);
          provider.simulator.failNext(2, 500, 'internal_server_error');
        }
      } catch (err) {
        return err;
      }
      throw new Error('expected the listing to fail');
    })();
    expect(sizes).toEqual([100]);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).status).toBe(500);
  });
});

describe('getPayout', () => {
  it('returns the payout of the sub account, and resource_not_found for another account or an unknown id', async () => {
    expect(await client().getPayout('po_old', ACCOUNT)).toMatchObject({ id: 'po_old', amount: 1000 });
    for (const [id, account] of [
      ['po_elsewhere', ACCOUNT],
      ['po_missing', ACCOUNT],
    ] as const) {
      const failure = await client()
        .getPayout(id, account)
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(failure).toBeInstanceOf(ProviderError);
      expect(failure).toMatchObject({ status: 404, code: 'resource_not_found' });
    }
    expect(sleeps).toEqual([]);
  });
});
