import { entriesOf, lineOf, netOf, totalsOf } from '../simulator/payoutLines.ts';
import type { StoredResource } from '../simulator/resourceStore.ts';
import type { Simulator } from '../simulator/server.ts';

const HOUR = 3600_000;

/** Lines per payout: `BENCH_PAYOUT_LINES` (default 1,000, at least 2); anything else stops the bench. */
export function linesPerPayout(): number {
  const given = process.env.BENCH_PAYOUT_LINES;
  if (given === undefined || given === '') return 1000;
  const value = Number(given);
  if (!Number.isInteger(value) || value < 2) {
    process.stderr.write(
      `BENCH_PAYOUT_LINES must be a whole number of at least 2, not ${JSON.stringify(given)}\n`,
    );
    process.exit(2);
  }
  return value;
}

/**
 * Generates straight into the simulator's stores `payouts` paid payouts of one sub account, each of exactly
 * `lines` lines: its own `payout` line and its payments' (a payment line and a processing fee line each; when
 * the count is even, one payment carries its fee inline on a single line). Every payment a line names is in
 * the simulator's payments, succeeded and priced by the account's configuration; each is in one payout only.
 * The payouts are created one a minute, ending an hour ago; their payments in the two days before the first.
 */
export function generatePayouts(
  simulator: Simulator,
  account: string,
  options: { payouts: number; lines: number; now: number },
): { payments: StoredResource[]; lines: number } {
  const paymentLines = options.lines - 1;
  const inline = paymentLines % 2 === 1 ? 1 : 0;
  const perPayout = (paymentLines - inline) / 2 + inline;
  const lastCreated = options.now - HOUR;
  const firstCreated = lastCreated - (options.payouts - 1) * 60_000;
  simulator.store.create(account, 'processing_ecomm', {
    variable_rate: 2.9,
    transaction_fee_cents: 30,
    fee_cap_cents: null,
    effective_start: new Date(firstCreated - 30 * 24 * HOUR).toISOString(),
  });
  const payments = simulator.seedPayments(options.payouts * perPayout, account, {
    createdBetween: [new Date(firstCreated - 48 * HOUR), new Date(firstCreated - HOUR)],
  });
  let total = 0;
  for (let index = 0; index < options.payouts; index++) {
    const paid = payments.slice(index * perPayout, (index + 1) * perPayout);
    const entries = paid.flatMap((payment, position) =>
      entriesOf(payment, position < inline ? 'inline' : 'lines'),
    );
    const payoutId = `po_bench_${String(index).padStart(7, '0')}`;
    const createdAt = new Date(firstCreated + index * 60_000).toISOString();
    const context = {
      script: { account_id: account, currency: 'usd', sign_convention: 'negative' as const },
      payoutId,
      createdAt,
    };
    const amount = entries.reduce((sum, entry) => sum + netOf(entry), 0);
    const lines = entries.map((entry) => lineOf(entry, context));
    lines.push(
      lineOf({ txnType: 'payout', amount: -amount, source: [payoutId, 'payout'], paymentId: null }, context),
    );
    total += lines.length;
    simulator.payouts.put(
      {
        id: payoutId,
        account_id: account,
        amount,
        currency: 'usd',
        status: 'paid',
        payout_type: 'cc',
        delivery_method: 'standard',
        description: `Payout ${payoutId}`,
        deposits_at: new Date(Date.parse(createdAt) + 60_000).toISOString(),
        ...totalsOf(entries),
        bank_account: { id: `ba_bench_${index}`, acct_last_four: '6789', bank_name: 'Simulated Bank' },
        metadata: {},
        created_at: createdAt,
        updated_at: createdAt,
      },
      lines,
    );
    simulator.payouts.markPaidOut(
      paid.map((payment) => payment.id),
      payoutId,
    );
  }
  return { payments, lines: total };
}
