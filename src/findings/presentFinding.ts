import type { Queryable } from '../db/pool.ts';
import { findingIdText } from './findingId.ts';

/** A finding's columns as its readers select them. */
export const FINDING_COLUMNS = `id, code, severity, status, subject_type, subject_id, account_id, currency, expected,
                 actual, at_stake, details, first_seen_at, last_seen_at, resolved_at`;

/** One entry of a finding's history, as its readers show it. */
export type FindingHistoryRow = {
  actor: string;
  action: string;
  old_status: string;
  new_status: string;
  note: string | null;
  created_at: Date;
};

/** The contract shape: ids are `fnd_`-prefixed like the provider's. */
export function presentFinding(row: Record<string, unknown>) {
  return { ...row, id: findingIdText(row.id as number) };
}

// Timestamps as JavaScript's toISOString writes them, so a finding built in SQL reads as one built here.
const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const TIMES = new Set(['first_seen_at', 'last_seen_at', 'resolved_at']);

/** `presentFinding` in SQL (alias: the findings row), for the findings listed inside another object. */
export function findingJson(f: string): string {
  const pairs = FINDING_COLUMNS.split(',').map((spaced) => {
    const column = spaced.trim();
    const value =
      column === 'id'
        ? `'fnd_' || ${f}.id`
        : TIMES.has(column)
          ? isoTime(`${f}.${column}`)
          : `${f}.${column}`;
    return `'${column}', ${value}`;
  });
  return `jsonb_build_object(${pairs.join(', ')})`;
}

/** A finding with its history, as GET /api/findings/:id and the changes feed show it; null when none. */
export async function readFindingWithHistory(db: Queryable, id: number) {
  return (await readFindingsWithHistory(db, [id])).get(id) ?? null;
}

/** `readFindingWithHistory` for several findings, in two statements, by row id. */
export async function readFindingsWithHistory(db: Queryable, ids: number[]) {
  const [findings, history] = await Promise.all([
    db.query<Record<string, unknown> & { id: number }>(
      `select ${FINDING_COLUMNS} from findings where id = any($1::bigint[])`,
      [ids],
    ),
    db.query<FindingHistoryRow & { finding_id: number }>(
      `select finding_id, actor, action, old_status, new_status, note, created_at
         from finding_history where finding_id = any($1::bigint[]) order by id`,
      [ids],
    ),
  ]);
  return new Map(
    findings.rows.map((finding) => [
      finding.id,
      {
        ...presentFinding(finding),
        history: history.rows
          .filter((row) => row.finding_id === finding.id)
          .map(({ finding_id: _findingId, ...row }) => row),
      },
    ]),
  );
}
