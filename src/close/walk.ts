import { heldEffect, MOVEMENT_KINDS, type MovementKind } from '../domain/movementKinds.ts';

export type KindTotals = Record<MovementKind, number>;

export const emptyTotals = (): KindTotals =>
  Object.fromEntries(MOVEMENT_KINDS.map((kind) => [kind, 0])) as KindTotals;

/** What the provider holds as a result of these movements, in cents. */
export const heldOf = (totals: KindTotals): number =>
  MOVEMENT_KINDS.reduce((sum, kind) => sum + heldEffect(kind, totals[kind]), 0);

/** The activity section: the period's sums, and `net` as the contract defines it. */
export function activityOf(totals: KindTotals) {
  const fees = totals.fee_processing + totals.fee_platform + totals.fee_other;
  const feesReturned =
    totals.fee_returned_processing + totals.fee_returned_platform + totals.fee_returned_other;
  return {
    sales: totals.sale,
    processing_fees: totals.fee_processing,
    platform_fees: totals.fee_platform,
    other_fees: totals.fee_other,
    fees,
    fees_returned: feesReturned,
    refunds: totals.refund,
    disputes_withdrawn: totals.dispute_withdrawn,
    disputes_returned: totals.dispute_returned,
    ach_returns: totals.ach_return,
    net:
      totals.sale -
      fees +
      feesReturned -
      totals.refund -
      totals.dispute_withdrawn +
      totals.dispute_returned -
      totals.ach_return,
  };
}

/** The walk's terms in the order the identity reads them; reports and the closed-period check list them so. */
export const WALK_TERMS = [
  'held_start',
  'prior_period_adjustments',
  'net',
  'unexplained',
  'paid_out',
  'held_end',
] as const;

export type Walk = Record<(typeof WALK_TERMS)[number], number>;

/**
 * The walk of one account and currency: `held_end` is what everything Tally knows up to the period's end
 * leaves with the provider (`heldBefore` plus the period's movements), counted apart from the terms, so the
 * identity held_start + prior_period_adjustments + net + unexplained − paid_out = held_end is a check.
 */
export function walkOf(heldStart: number, adjustments: number, heldBefore: number, totals: KindTotals): Walk {
  return {
    held_start: heldStart,
    prior_period_adjustments: adjustments,
    net: activityOf(totals).net,
    unexplained: totals.unexplained,
    paid_out: totals.payout - totals.payout_reversed,
    held_end: heldBefore + heldOf(totals),
  };
}

export const walkHolds = (walk: Walk) =>
  walk.held_start + walk.prior_period_adjustments + walk.net + walk.unexplained - walk.paid_out ===
  walk.held_end;
