import type { Queryable } from '../db/pool.ts';
import { appendHistoryChanges } from './findingChanges.ts';
import { FINDING_COLUMNS } from './presentFinding.ts';
import { CHANGED_IN_HISTORY } from './queries.ts';
import type { FindingStatus, WorkflowAction } from './workflow.ts';

/** One finding by row id, or null; `forUpdate` locks it for a workflow change in the caller's transaction. */
export async function findFinding(db: Queryable, id: number, forUpdate = false) {
  const { rows } = await db.query<Record<string, unknown> & { id: number; status: FindingStatus }>(
    `select ${FINDING_COLUMNS} from findings where id = $1::bigint ${forUpdate ? 'for update' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}

export type FindingChange = {
  findingId: number;
  actor: string;
  action: WorkflowAction;
  oldStatus: FindingStatus;
  newStatus: FindingStatus;
  note: string | null;
  at: Date;
};

/** Applies a person's change (status and history row) to findings already locked by the caller. */
export async function recordFindingChanges(db: Queryable, changes: FindingChange[]): Promise<void> {
  if (changes.length === 0) return;
  const recorded = await db.query(
    `with changes as (
       select * from jsonb_to_recordset($1::jsonb)
         as c("findingId" bigint, actor text, action text, "oldStatus" text, "newStatus" text, note text, at timestamptz)
     ), updated as (
       update findings f set status = c."newStatus" from changes c where f.id = c."findingId"
     )
     insert into finding_history (finding_id, actor, action, old_status, new_status, note, created_at)
     select "findingId", actor, action, "oldStatus", "newStatus", note, at from changes
     ${CHANGED_IN_HISTORY}`,
    [JSON.stringify(changes)],
  );
  // A person's change: at the time of their action, naming no delivery.
  await appendHistoryChanges(db, recorded.rows);
}
