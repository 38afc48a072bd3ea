import { type Pool, withTransaction } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { type ProviderClient, ProviderError } from '../provider/client.ts';
import {
  type ApiObject,
  readApiObject,
  type SnapshotResource,
  snapshotOf,
} from '../sweep/compareSnapshot.ts';
import { findAccountType, insertApiSnapshots } from '../sweep/queries.ts';
import {
  findSyncedPayouts,
  listPaymentsToFetch,
  lockPaymentFetch,
  recordAccountSync,
  recordPaymentFetch,
  recordPayoutLineSync,
} from './syncQueries.ts';

/** What the payout sync needs of the provider client (src/provider/client.ts). */
export type PayoutSyncClient = Pick<
  ProviderClient,
  'payoutPages' | 'getPayout' | 'balanceTransactionPages' | 'getPayment'
>;

export type PayoutSyncContext = { pool: Pool; client: PayoutSyncClient; log: Logger; now: () => Date };

export type PayoutSyncCounts = {
  listed: number;
  /** Listed without an id: nothing can be stored of them. */
  withoutId: number;
  unchanged: number;
  synced: number;
  lines: number;
  paymentsFetched: number;
  paymentsNotFound: number;
};

type Account = { id: string; type: string };

const emptyCounts = (): PayoutSyncCounts => ({
  listed: 0,
  withoutId: 0,
  unchanged: 0,
  synced: 0,
  lines: 0,
  paymentsFetched: 0,
  paymentsNotFound: 0,
});

const textField = (object: ApiObject, field: string): string | null => {
  const value = (object.raw as Record<string, unknown> | null)?.[field];
  return typeof value === 'string' ? value : null;
};

/**
 * Lists a sub account's payouts created since `since` and stores, as `api` snapshots in the raw log, each
 * new or changed one with every line of it, then its line count. Whatever a run stored stays stored, and
 * the next run skips it (snapshot ids are the object's id and `updated_at`), so a run stopped by a crash or
 * a provider failure goes on where it stopped. Records the account as synced once its listing is done.
 */
export async function syncAccountPayouts(
  context: PayoutSyncContext,
  accountId: string,
  since: Date,
): Promise<PayoutSyncCounts> {
  const account = await accountOf(context, accountId);
  const counts = emptyCounts();
  let newest: Date | null = null;
  for await (const page of context.client.payoutPages(accountId, { createdAfter: since })) {
    const payouts = page.map(readApiObject);
    for (const payout of payouts)
      if (payout.createdAt && (!newest || payout.createdAt > newest)) newest = payout.createdAt;
    await syncListedPayouts(context, account, payouts, counts);
    context.log.info({ accountId, ...counts }, 'payout sync: page of payouts done');
  }
  await recordAccountSync(context.pool, accountId, {
    at: context.now(),
    listedFrom: since,
    newestPayoutCreatedAt: newest,
  });
  context.log.info({ accountId, ...counts }, 'payout sync of an account done');
  return counts;
}

/** Fetches one payout (a `payout.*` delivery named it) and, unless Tally has it whole already, its lines. */
export async function syncOnePayout(
  context: PayoutSyncContext,
  accountId: string,
  payoutId: string,
): Promise<PayoutSyncCounts> {
  const account = await accountOf(context, accountId);
  const counts = emptyCounts();
  const fetched = await orNullIfNotFound(context.client.getPayout(payoutId, accountId));
  // Retrying cannot help: the delivery named a payout the API does not show on that account.
  if (fetched === null) {
    context.log.warn({ accountId, payoutId }, 'payout sync: the provider does not know this payout');
    return counts;
  }
  await syncListedPayouts(context, account, [readApiObject(fetched)], counts);
  context.log.info({ accountId, payoutId, ...counts }, 'payout sync of one payout done');
  return counts;
}

async function accountOf(context: PayoutSyncContext, accountId: string): Promise<Account> {
  return { id: accountId, type: (await findAccountType(context.pool, accountId)) ?? 'live' };
}

async function syncListedPayouts(
  context: PayoutSyncContext,
  account: Account,
  payouts: ApiObject[],
  counts: PayoutSyncCounts,
) {
  const listed = payouts.flatMap((payout) =>
    payout.id === null
      ? []
      : [{ id: payout.id, updatedAt: payout.updatedAt, status: textField(payout, 'status') }],
  );
  const synced = await findSyncedPayouts(context.pool, listed);
  counts.listed += payouts.length;
  for (const payout of payouts) {
    if (payout.id === null) counts.withoutId += 1;
    else if (synced.has(payout.id)) counts.unchanged += 1;
    else {
      await syncPayout(context, account, payout, payout.id, counts);
      counts.synced += 1;
    }
  }
}

async function storeSnapshots(
  context: PayoutSyncContext,
  db: Parameters<typeof insertApiSnapshots>[0],
  account: Account,
  resource: SnapshotResource,
  objects: ApiObject[],
) {
  const fetchedAt = context.now();
  await insertApiSnapshots(
    db,
    objects.map((object) =>
      snapshotOf(resource, object, { accountId: account.id, accountType: account.type, fetchedAt }),
    ),
  );
}

/**
 * The payout, each page of its lines, the unknown payments its lines name, and last the line count with the
 * record that this state is synced: a run stopped before the end leaves no count, so the next one fetches
 * the payout again (what it stored already is skipped).
 */
async function syncPayout(
  context: PayoutSyncContext,
  account: Account,
  payout: ApiObject,
  payoutId: string,
  counts: PayoutSyncCounts,
) {
  await storeSnapshots(context, context.pool, account, 'payouts', [payout]);
  const lineIds = new Set<string>();
  const paymentIds = new Set<string>();
  for await (const page of context.client.balanceTransactionPages(payoutId, account.id)) {
    const lines = page.map(readApiObject);
    await storeSnapshots(context, context.pool, account, 'balance_transactions', lines);
    for (const line of lines) {
      lineIds.add(line.id ?? JSON.stringify(line.raw));
      const paymentId = textField(line, 'source_payment_id');
      if (paymentId) paymentIds.add(paymentId);
    }
  }
  counts.lines += lineIds.size;
  await fetchUnknownPayments(context, account, payoutId, [...paymentIds], counts);
  const marker: ApiObject = {
    raw: { payout_id: payoutId, line_count: lineIds.size },
    id: `${payoutId}_lines_${lineIds.size}`,
    createdAt: null,
    updatedAt: payout.updatedAt,
  };
  await withTransaction(context.pool, async (client) => {
    await storeSnapshots(context, client, account, 'payout_line_counts', [marker]);
    await recordPayoutLineSync(client, {
      payoutId,
      accountId: account.id,
      updatedAt: payout.updatedAt,
      status: textField(payout, 'status') ?? '',
      lineCount: lineIds.size,
      at: context.now(),
    });
  });
}

/**
 * A payment a line names that Tally does not have is fetched once with get-payment and stored as an `api`
 * snapshot, as the missed-event sweep does; one the provider does not know is recorded as not found.
 */
async function fetchUnknownPayments(
  context: PayoutSyncContext,
  account: Account,
  payoutId: string,
  paymentIds: string[],
  counts: PayoutSyncCounts,
) {
  for (const paymentId of await listPaymentsToFetch(context.pool, paymentIds)) {
    // Two syncs naming the same payment (a payout's two deliveries, or a delivery and the account sync) take
    // turns: the second one finds the first one's fetch recorded and does not ask the provider again.
    const found = await withTransaction(context.pool, async (client) => {
      await lockPaymentFetch(client, paymentId);
      if ((await listPaymentsToFetch(client, [paymentId])).length === 0) return undefined;
      const payment = await orNullIfNotFound(context.client.getPayment(paymentId, account.id));
      if (payment) await storeSnapshots(context, client, account, 'payments', [readApiObject(payment)]);
      const fetch = {
        paymentId,
        accountId: account.id,
        payoutId,
        found: payment !== null,
        at: context.now(),
      };
      await recordPaymentFetch(client, fetch);
      return payment !== null;
    });
    if (found === true) counts.paymentsFetched += 1;
    else if (found === false) counts.paymentsNotFound += 1;
  }
}

/** The provider's answer, or null when it says `resource_not_found`; any other failure is thrown. */
async function orNullIfNotFound(request: Promise<unknown>): Promise<unknown> {
  try {
    return await request;
  } catch (err) {
    if (err instanceof ProviderError && (err.code === 'resource_not_found' || err.status === 404))
      return null;
    throw err;
  }
}
