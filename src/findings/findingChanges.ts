import { type ChangeDraft, insertChanges, nextVersions } from '../changes/appendChanges.ts';
import type { ChangeType } from '../changes/changeTypes.ts';
import type { Queryable } from '../db/pool.ts';
import { findingIdText } from './findingId.ts';
import { readFindingsWithHistory } from './presentFinding.ts';

/** A finding opened or whose status changed, at the time of the run or of the person's action. */
export type FindingStatusChange = { findingId: number; type: ChangeType & `finding.${string}`; at: Date };

type HistoryRow = { finding_id: number; old_status: string; new_status: string; created_at: Date };

/** A history row (`finding_history`) as the change it records, or null for a note (no status change). */
function changeOfHistory(row: HistoryRow): FindingStatusChange | null {
  if (row.old_status === row.new_status) return null;
  const type =
    row.new_status === 'resolved'
      ? 'finding.resolved'
      : row.new_status === 'acknowledged'
        ? 'finding.acknowledged'
        : row.new_status === 'accepted'
          ? 'finding.accepted'
          : 'finding.reopened';
  return { findingId: row.finding_id, type, at: row.created_at };
}

/**
 * Appends the changes of findings opened or changed in the caller's transaction, each with the finding as
 * GET /api/findings/:id shows it after the change. They name no delivery: a run or a person made them.
 */
export async function appendFindingChanges(db: Queryable, changes: FindingStatusChange[]): Promise<void> {
  if (changes.length === 0) return;
  const ids = changes.map((change) => change.findingId);
  const versions = await nextVersions(db, 'finding', ids.map(findingIdText));
  const shown = await readFindingsWithHistory(db, ids);
  await insertChanges(
    db,
    changes.map((change): ChangeDraft => {
      const data = shown.get(change.findingId);
      const objectId = findingIdText(change.findingId);
      return {
        type: change.type,
        object: 'finding',
        object_id: objectId,
        object_version: versions.get(objectId) ?? 1,
        account_id: ((data as Record<string, unknown> | undefined)?.account_id as string | null) ?? null,
        account_type: null,
        occurred_at: change.at,
        event_ids: [],
        data,
      };
    }),
  );
}

/** `appendFindingChanges` for the rows a history insert returned (`CHANGED_IN_HISTORY`); notes append nothing. */
export async function appendHistoryChanges(db: Queryable, rows: HistoryRow[]): Promise<void> {
  await appendFindingChanges(
    db,
    rows.flatMap((row) => changeOfHistory(row) ?? []),
  );
}
