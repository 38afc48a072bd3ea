/**
 * A change as forwarding posts it: the same JSON as one item of `GET /api/changes`. The body is built from
 * the stored row alone, so every attempt and every replay of a change sends the same bytes.
 */
import type { Change } from '../changes/feedQueries.ts';

export type ChangeRow = Omit<Change, 'id'>;

/** The change's id: its feed position, the receiver's dedupe key (`webhook-id`). */
export const changeId = (seq: number) => `chg_${seq}`;

export function changeBody(row: ChangeRow): string {
  return JSON.stringify({
    id: changeId(row.seq),
    seq: row.seq,
    type: row.type,
    object: row.object,
    object_id: row.object_id,
    object_version: row.object_version,
    account_id: row.account_id,
    account_type: row.account_type,
    occurred_at: row.occurred_at.toISOString(),
    recorded_at: row.recorded_at.toISOString(),
    event_ids: row.event_ids,
    data: row.data,
  });
}

/** The columns a change is sent with, as a select list (`select … from changes`). */
export const CHANGE_COLUMNS = `select seq, type, object, object_id, object_version, account_id, account_type, occurred_at,
       recorded_at, event_ids, data`;

/** A change read as JSON (`to_jsonb`), its times as text. */
export type ChangeJson = Omit<ChangeRow, 'occurred_at' | 'recorded_at'> & {
  occurred_at: string;
  recorded_at: string;
};

/** A change read as JSON, its times as Dates again. */
export function changeRowOf(json: ChangeJson): ChangeRow {
  return { ...json, occurred_at: new Date(json.occurred_at), recorded_at: new Date(json.recorded_at) };
}
