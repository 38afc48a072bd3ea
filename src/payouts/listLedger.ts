import { type Pool, withTransaction } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { timestamp } from '../projection/fields.ts';
import { lineKindOf, normalizedAmounts } from '../projection/payouts/payoutRows.ts';
import { balanceTransactionSchema } from '../projection/payouts/payoutSnapshot.ts';
import type { ProviderClient } from '../provider/client.ts';
import {
  deleteLedgerLinesNotListed,
  findLedgerListing,
  findNewestLedgerLine,
  type LedgerLineRow,
  recordLedgerFailure,
  recordLedgerListing,
  upsertLedgerLines,
} from './ledgerQueries.ts';

export type LedgerContext = {
  pool: Pool;
  client: Pick<ProviderClient, 'ledgerPages'>;
  log: Logger;
  now: () => Date;
};

const DAY_MS = 24 * 3600_000;

/**
 * A line of the whole ledger: a payout's line, or one not in a payout yet (no `payout_id`). Its creation is
 * required, as the tie-out counts a line the source of which Tally does not know on that day.
 */
const ledgerLineSchema = balanceTransactionSchema.extend({
  payout_id: balanceTransactionSchema.shape.payout_id.nullish(),
  created_at: timestamp,
});

/** A page's lines as stored; one the schema refuses makes the page, and so the listing, malformed. */
function ledgerRowsOf(page: unknown[]): LedgerLineRow[] {
  const rows = new Map<string, LedgerLineRow>();
  page.forEach((raw, index) => {
    const parsed = ledgerLineSchema.safeParse(raw);
    if (!parsed.success)
      throw new Error(`line ${index} of the page is malformed: ${parsed.error.issues[0]?.message ?? ''}`);
    const line = parsed.data;
    const kind = lineKindOf(line.txn_type);
    rows.set(line.id, {
      id: line.id,
      payout_id: line.payout_id ?? null,
      txn_type: line.txn_type,
      kind,
      net: normalizedAmounts(kind, line).net,
      currency: line.currency.toLowerCase(),
      source_id: line.source_id ?? null,
      source_type: line.source_type ?? null,
      source_payment_id: line.source_payment_id ?? null,
      created_at: line.created_at.toISOString(),
    });
  });
  return [...rows.values()];
}

/**
 * Lists a sub account's whole ledger (GET /v1/balance_transactions without payout_id) for the month-end tie-out:
 * in full on the first listing and once a day, so a line the provider adds late with an earlier date, or
 * one it removed, is seen; otherwise from the newest line held less a day's overlap. The listing is stored in
 * one transaction, so one that fails (the provider's error after the client's retries, or a malformed page)
 * leaves the previous listing in place; the failure is recorded for GET /api/status and the tie-out, and the
 * next payout sync lists again.
 */
export async function listAccountLedger(
  context: LedgerContext,
  accountId: string,
): Promise<{ listed: boolean; full: boolean }> {
  const at = context.now();
  const previous = await findLedgerListing(context.pool, accountId);
  const full = !previous?.full_listed_at || at.getTime() - previous.full_listed_at.getTime() >= DAY_MS;
  const newest = full ? null : await findNewestLedgerLine(context.pool, accountId);
  const since = newest ? new Date(newest.getTime() - DAY_MS) : null;
  try {
    const lines = await withTransaction(context.pool, async (client) => {
      let count = 0;
      for await (const page of context.client.ledgerPages(accountId, full ? null : since)) {
        const rows = ledgerRowsOf(page);
        await upsertLedgerLines(client, accountId, rows, at);
        count += rows.length;
      }
      if (full) await deleteLedgerLinesNotListed(client, accountId, at);
      await recordLedgerListing(client, accountId, { at, full });
      return count;
    });
    context.log.info({ accountId, full, lines }, 'ledger listing of an account done');
    return { listed: true, full };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    await recordLedgerFailure(context.pool, accountId, { at, error: error.slice(0, 500) });
    context.log.warn({ err, accountId, full }, 'ledger listing failed: the previous listing stays in place');
    return { listed: false, full };
  }
}
