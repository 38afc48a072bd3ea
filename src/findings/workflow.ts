/** A finding's place in its workflow: people acknowledge and accept; the data resolves. */
export const FINDING_STATUSES = ['open', 'acknowledged', 'accepted', 'resolved'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];
export type WorkflowAction = 'acknowledge' | 'accept' | 'reopen' | 'note';

/**
 * What a person may do to a finding in each status, and the status it leads to. Resolved is the data's
 * word, not a person's: it reopens itself when the data disagrees again, so only a note can be added.
 */
const TRANSITIONS: Record<WorkflowAction, Partial<Record<FindingStatus, FindingStatus>>> = {
  acknowledge: { open: 'acknowledged' },
  accept: { open: 'accepted', acknowledged: 'accepted' },
  reopen: { acknowledged: 'open', accepted: 'open' },
  note: { open: 'open', acknowledged: 'acknowledged', accepted: 'accepted', resolved: 'resolved' },
};

/** An accept says why the discrepancy is fine; a note is nothing but its text. */
export const NOTE_REQUIRED: ReadonlySet<WorkflowAction> = new Set(['accept', 'note']);

/** The status `action` leads to from `status`, or null when the action does not apply there. */
export function nextStatus(action: WorkflowAction, status: FindingStatus): FindingStatus | null {
  return TRANSITIONS[action][status] ?? null;
}

/** The statuses `action` applies to, for the message of a refused change. */
export function statusesFor(action: WorkflowAction): FindingStatus[] {
  return Object.keys(TRANSITIONS[action]) as FindingStatus[];
}
