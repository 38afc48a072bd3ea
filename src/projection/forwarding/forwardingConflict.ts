import type { FindingDraft } from '../../findings/findings.ts';

export type ForwardingAttemptOutcome = {
  status: string;
  failureReason: string | null;
  responseStatusCode: number | null;
};

/**
 * The provider publishes exactly one terminal outcome per forwarding request; a second, different one
 * (completed and failed, or two different answers) is a conflict. The same outcome twice is not.
 */
export function forwardingConflict(
  requestId: string,
  outcomes: ForwardingAttemptOutcome[],
): FindingDraft | null {
  const distinct = [
    ...new Map(
      outcomes.map((outcome) => [
        JSON.stringify([outcome.status, outcome.failureReason, outcome.responseStatusCode]),
        outcome,
      ]),
    ).values(),
  ];
  if (distinct.length < 2) return null;
  return {
    code: 'forwarding_outcome_conflict',
    severity: 'error',
    subjectType: 'forwarding_request',
    subjectId: requestId,
    expected: 'one terminal outcome',
    actual: distinct.map((outcome) => outcome.status),
    atStake: null,
    details: {
      outcomes: distinct.map((outcome) => ({
        status: outcome.status,
        failure_reason: outcome.failureReason,
        response_status_code: outcome.responseStatusCode,
      })),
    },
  };
}
