import { decimal } from '../domain/money.ts';
import type { PayoutDetail } from '../projection/payouts/payoutDetail.ts';
import { csvField } from './renderCsv.ts';

type Line = PayoutDetail['lines'][number];

// Each money column twice, like the reports: integer cents, and the same as a decimal for a spreadsheet.
const COLUMNS: [name: string, value: (payout: PayoutDetail, line: Line) => unknown, money?: boolean][] = [
  ['payout_id', (payout) => payout.id],
  ['account_id', (payout) => payout.account_id],
  ['payout_status', (payout) => payout.status],
  ['deposits_at', (payout) => payout.deposits_at],
  ['line_id', (_, line) => line.id],
  ['created_at', (_, line) => line.created_at],
  ['available_on', (_, line) => line.available_on],
  ['txn_type', (_, line) => line.txn_type],
  ['kind', (_, line) => line.kind],
  ['source_type', (_, line) => line.source_type],
  ['source_id', (_, line) => line.source_id],
  ['source_payment_id', (_, line) => line.source_payment_id],
  ['financial_transaction_id', (_, line) => line.financial_transaction_id],
  ['description', (_, line) => line.description],
  ['currency', (_, line) => line.currency],
  ['amount', (_, line) => line.amount, true],
  ['fee', (_, line) => line.fee, true],
  ['net', (_, line) => line.net, true],
  ['check_status', (_, line) => line.check?.status],
  ['matched_type', (_, line) => line.check?.matched_type],
  ['matched_id', (_, line) => line.check?.matched_id],
  ['expected', (_, line) => line.check?.expected, true],
  ['actual', (_, line) => line.check?.actual, true],
];

const text = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * A payout statement for an accounting file, one line at a time (CRLF): a header, then one row per balance
 * transaction with its check. A money column comes as `<name>_cents` (integer) and `<name>` (e.g. 12.34).
 */
export function* renderPayoutCsv(payout: PayoutDetail): Generator<string> {
  const header = COLUMNS.flatMap(([name, , money]) => (money ? [`${name}_cents`, name] : [name]));
  yield `${header.map(csvField).join(',')}\r\n`;
  for (const line of payout.lines) {
    const fields = COLUMNS.flatMap(([, value, money]) => {
      const cell = text(value(payout, line));
      return money ? [cell, typeof cell === 'number' ? decimal(cell) : ''] : [cell];
    });
    yield `${fields.map(csvField).join(',')}\r\n`;
  }
}
