import { type Pool, withTransaction } from '../db/pool.ts';
import { redactCardNumbersInText } from '../domain/cardNumbers.ts';
import { type FindingChange, findFinding, recordFindingChanges } from './historyQueries.ts';
import { type FindingFilter, listFindings } from './readQueries.ts';
import { NOTE_REQUIRED, nextStatus, statusesFor, type WorkflowAction } from './workflow.ts';

/** Why a person's change was refused, in words safe to show them. */
export class WorkflowError extends Error {
  readonly reason: 'not_found' | 'invalid_transition' | 'note_required';
  constructor(reason: WorkflowError['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

export type ChangeRequest = { action: WorkflowAction; note: string | null; actor: string; at: Date };

function requireNote(request: ChangeRequest): void {
  if (NOTE_REQUIRED.has(request.action) && !request.note)
    throw new WorkflowError('note_required', `note: required to ${request.action} a finding`);
}

/** One finding's acknowledge, accept, reopen or note, with its history row; returns the new status. */
export async function changeFinding(pool: Pool, findingId: number, request: ChangeRequest) {
  requireNote(request);
  return withTransaction(pool, async (client) => {
    const finding = await findFinding(client, findingId, true);
    if (!finding) throw new WorkflowError('not_found', 'no finding with that id');
    const newStatus = nextStatus(request.action, finding.status);
    if (newStatus === null) {
      const allowed = statusesFor(request.action).join(', ');
      throw new WorkflowError(
        'invalid_transition',
        `cannot ${request.action} a finding that is ${finding.status} (only ${allowed})`,
      );
    }
    await recordFindingChanges(client, [changeOf(findingId, finding.status, newStatus, request)]);
    return newStatus;
  });
}

// A bulk change goes through at most this many findings at once; the console says when more matched.
export const BULK_LIMIT = 100;

/**
 * Acknowledges or accepts every finding the filter selects to which the action applies (at most
 * BULK_LIMIT, newest first); returns how many changed.
 */
export async function changeFindingsByFilter(
  pool: Pool,
  filter: FindingFilter,
  request: ChangeRequest,
): Promise<number> {
  requireNote(request);
  return withTransaction(pool, async (client) => {
    const changes: FindingChange[] = [];
    for (const status of statusesFor(request.action)) {
      if (filter.status !== undefined && filter.status !== status) continue;
      const rows = await listFindings(
        client,
        { ...filter, status },
        { limit: BULK_LIMIT, afterId: null, beforeId: null },
      );
      for (const row of rows.slice(0, BULK_LIMIT - changes.length)) {
        const locked = await findFinding(client, row.id, true);
        const newStatus = locked ? nextStatus(request.action, locked.status) : null;
        if (locked && newStatus) changes.push(changeOf(row.id, locked.status, newStatus, request));
      }
    }
    await recordFindingChanges(client, changes);
    return changes.length;
  });
}

function changeOf(
  findingId: number,
  oldStatus: FindingChange['oldStatus'],
  newStatus: FindingChange['newStatus'],
  request: ChangeRequest,
): FindingChange {
  return {
    findingId,
    actor: request.actor,
    action: request.action,
    oldStatus,
    newStatus,
    // A person may paste a card number into a note: it is kept as its last four, like everything else.
    note: request.note === null ? null : redactCardNumbersInText(request.note),
    at: request.at,
  };
}
