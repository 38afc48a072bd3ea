import type { FindingCode } from './findings.ts';

/** Every finding code at run time (ALERT_FINDING_CODES is checked against it at boot). */
export const FINDING_CODES = [
  'fee_total_mismatch',
  'fee_amount_mismatch',
  'fee_configuration_unknown',
  'fee_configuration_not_effective',
  'fee_configuration_not_applicable',
  'platform_fee_missing',
  'refund_exceeds_payment',
  'returned_fee_unknown',
  'returned_fee_original_mismatch',
  'returned_fee_exceeds_remaining',
  'returned_fee_remaining_mismatch',
  'fee_remaining_mismatch',
  'checkout_fee_mismatch',
  'ach_return',
  'capture_expiring',
  'capture_expired',
  'forwarding_outcome_conflict',
  'fee_configuration_chain_broken',
  'fee_configuration_history_rewritten',
  'base_fee_configuration_missing',
  'event_quarantined',
  'event_id_conflict',
  'event_missed',
  'dispute_open',
  'dispute_lost',
  'payout_total_mismatch',
  'payout_line_mismatch',
  'payout_payment_unknown',
  'payment_paid_out_twice',
  'payment_not_paid_out',
  'payout_failed',
  'payout_canceled',
  'payout_overdue',
  'payout_not_in_bank',
  'bank_deposit_unmatched',
  'bank_match_ambiguous',
  'card_retried_against_advice',
  'card_declined_repeatedly',
] as const satisfies readonly FindingCode[];

// A code added to the FindingCode union and not here is a type error on this line.
const everyCodeListed: Exclude<FindingCode, (typeof FINDING_CODES)[number]> extends never ? true : never =
  true;
void everyCodeListed;
