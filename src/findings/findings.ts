/** How much a finding matters, least first. */
export const SEVERITIES = ['info', 'warning', 'error'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Every finding code, exactly the codes of the finding table in docs/findings.md (a contract: a code is added
 * there first). ALERT_FINDING_CODES is checked against this list at boot.
 */
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
  'closed_period_changed',
  'period_held_mismatch',
] as const;

export type FindingCode = (typeof FINDING_CODES)[number];

/** A finding as a reconciliation rule reports it, before the store gives it an id and a lifecycle. */
export type FindingDraft = {
  code: FindingCode;
  severity: Severity;
  subjectType: string;
  subjectId: string;
  expected: unknown;
  actual: unknown;
  details: Record<string, unknown>;
  /**
   * Integer cents in the finding's currency that the finding puts at stake, never negative (the direction is
   * in expected and actual); null when it measures no money. Required, so no rule can leave it out.
   */
  atStake: number | null;
  /** Set when findings of one run belong to different accounts (else the run's account is used). */
  accountId?: string;
  currency?: string;
};
