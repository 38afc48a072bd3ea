/**
 * The kinds of money movement a period counts, and how each posts: the ledger kinds debited and credited
 * (docs/month-end.md, "The journal"), and its sign on what the provider holds (`clearing`).
 */
export const LEDGER_KINDS = [
  'clearing',
  'sales',
  'processing_fees',
  'platform_fees',
  'other_fees',
  'refunds',
  'disputes',
  'ach_returns',
  'in_transit',
  'bank',
  'unexplained',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

type Posting = { debit: LedgerKind; credit: LedgerKind; held: 1 | -1 | 0; label: string };

export const MOVEMENTS = {
  sale: { debit: 'clearing', credit: 'sales', held: 1, label: 'Sales' },
  fee_processing: { debit: 'processing_fees', credit: 'clearing', held: -1, label: 'Processing fees' },
  fee_platform: { debit: 'platform_fees', credit: 'clearing', held: -1, label: 'Platform fees' },
  fee_other: { debit: 'other_fees', credit: 'clearing', held: -1, label: 'Other fees' },
  fee_returned_processing: {
    debit: 'clearing',
    credit: 'processing_fees',
    held: 1,
    label: 'Processing fees returned',
  },
  fee_returned_platform: {
    debit: 'clearing',
    credit: 'platform_fees',
    held: 1,
    label: 'Platform fees returned',
  },
  fee_returned_other: { debit: 'clearing', credit: 'other_fees', held: 1, label: 'Other fees returned' },
  refund: { debit: 'refunds', credit: 'clearing', held: -1, label: 'Refunds' },
  dispute_withdrawn: { debit: 'disputes', credit: 'clearing', held: -1, label: 'Disputes withdrawn' },
  dispute_returned: { debit: 'clearing', credit: 'disputes', held: 1, label: 'Disputes returned' },
  ach_return: { debit: 'ach_returns', credit: 'clearing', held: -1, label: 'ACH returns' },
  payout: { debit: 'in_transit', credit: 'clearing', held: -1, label: 'Payout' },
  payout_reversed: { debit: 'clearing', credit: 'in_transit', held: 1, label: 'Payout reversed' },
  bank_credit: { debit: 'bank', credit: 'in_transit', held: 0, label: 'Bank credit' },
  unexplained: { debit: 'clearing', credit: 'unexplained', held: 1, label: 'Unexplained in payout' },
} as const satisfies Record<string, Posting>;

export type MovementKind = keyof typeof MOVEMENTS;
export const MOVEMENT_KINDS = Object.keys(MOVEMENTS) as MovementKind[];

/** A movement's effect on what the provider holds, in cents. */
export const heldEffect = (kind: MovementKind, amount: number): number => MOVEMENTS[kind].held * amount;
