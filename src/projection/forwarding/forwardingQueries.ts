import type { Queryable } from '../../db/pool.ts';
import { type ColumnTypes, columnList, recordDefinition } from '../columnTypes.ts';
import { newerWinsUpsert, runNewerWinsUpsert } from '../newerWins.ts';

export type ForwardingRequestRow = {
  id: string;
  account_id: string;
  account_type: string;
  payment_method_id: string | null;
  url: string | null;
  http_method: string | null;
  provider: string | null;
  status: string;
  status_rank: number;
  status_updated_at: Date;
  status_event_row_id: number;
  failure_reason: string | null;
  response_status_code: number | null;
  response_time_ms: number | null;
  attempted_at: Date | null;
  created_at: Date | null;
  updated_at: Date;
  /** `updated_at` if a webhook delivered this snapshot, null for an API snapshot. */
  delivered_updated_at: Date | null;
  event_row_id: number;
  snapshot: unknown;
};

export const FORWARDING_REQUEST_COLUMNS: ColumnTypes<ForwardingRequestRow> = {
  id: 'text',
  account_id: 'text',
  account_type: 'text',
  payment_method_id: 'text',
  url: 'text',
  http_method: 'text',
  provider: 'text',
  status: 'text',
  status_rank: 'integer',
  status_updated_at: 'timestamptz',
  status_event_row_id: 'bigint',
  failure_reason: 'text',
  response_status_code: 'integer',
  response_time_ms: 'integer',
  attempted_at: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  delivered_updated_at: 'timestamptz',
  event_row_id: 'bigint',
  snapshot: 'jsonb',
};

const UPSERT_FORWARDING_REQUEST = newerWinsUpsert('forwarding_requests', FORWARDING_REQUEST_COLUMNS, {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'payment_method_id',
        'url',
        'http_method',
        'provider',
        'attempted_at',
        'created_at',
        'snapshot',
      ],
    },
    {
      key: ['status_rank', 'status_updated_at', 'status_event_row_id'],
      columns: ['status', 'failure_reason', 'response_status_code', 'response_time_ms'],
    },
  ],
  // The newest state any webhook brought, whichever snapshot is shown (greatest ignores nulls).
  custom: {
    delivered_updated_at: {
      merge: 'max(delivered_updated_at)',
      update: 'greatest(forwarding_requests.delivered_updated_at, excluded.delivered_updated_at)',
    },
  },
});

/** Upserts a batch of forwarding request snapshots. */
export async function upsertForwardingRequests(db: Queryable, rows: ForwardingRequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await runNewerWinsUpsert(db, UPSERT_FORWARDING_REQUEST, rows);
}

/** One terminal outcome event of a forwarding request, keyed by the event that reported it. */
export type ForwardingOutcomeRow = {
  event_row_id: number;
  forwarding_request_id: string;
  status: 'completed' | 'failed';
  failure_reason: string | null;
  response_status_code: number | null;
  url: string | null;
};

export const FORWARDING_OUTCOME_COLUMNS: ColumnTypes<ForwardingOutcomeRow> = {
  event_row_id: 'bigint',
  forwarding_request_id: 'text',
  status: 'text',
  failure_reason: 'text',
  response_status_code: 'integer',
  url: 'text',
};

const INSERT_FORWARDING_OUTCOMES_SQL = `insert into forwarding_outcomes (${columnList(FORWARDING_OUTCOME_COLUMNS)})
     select ${columnList(FORWARDING_OUTCOME_COLUMNS)}
       from jsonb_to_recordset($1::jsonb) as r(${recordDefinition(FORWARDING_OUTCOME_COLUMNS)})
      order by event_row_id
     on conflict (event_row_id) do nothing`;

/** Records terminal outcome events of forwarding requests; the same event twice is stored once. */
export async function insertForwardingOutcomes(db: Queryable, rows: ForwardingOutcomeRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(INSERT_FORWARDING_OUTCOMES_SQL, [JSON.stringify(rows)]);
}

export type RecordedForwardingOutcome = Omit<ForwardingOutcomeRow, 'url'>;

/** The outcomes recorded for the requests, each request's in the order their events were stored. */
export async function listForwardingOutcomes(
  db: Queryable,
  requestIds: string[],
): Promise<RecordedForwardingOutcome[]> {
  const { rows } = await db.query<RecordedForwardingOutcome>(
    `select event_row_id, forwarding_request_id, status, failure_reason, response_status_code
       from forwarding_outcomes where forwarding_request_id = any($1::text[]) order by event_row_id`,
    [requestIds],
  );
  return rows;
}
