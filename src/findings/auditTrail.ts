import { stringify } from 'csv-stringify';
import type { Queryable } from '../db/pool.ts';
import { businessDate } from '../domain/days.ts';
import { decimal } from '../domain/money.ts';
import { type FindingAuditFilter, type FindingAuditRow, listFindingAuditBatch } from './readQueries.ts';

/** Findings read per statement: the export holds one batch in memory, however long the range. */
export const AUDIT_BATCH_FINDINGS = 500;

/** The audit trail's columns, in order: the finding, then one entry of its history. */
export const FINDING_AUDIT_COLUMNS = [
  'finding_id',
  'code',
  'severity',
  'status',
  'subject_type',
  'subject_id',
  'account_id',
  'currency',
  'expected',
  'actual',
  'at_stake',
  'at_stake_decimal',
  'first_seen_at',
  'first_seen_day',
  'last_seen_at',
  'resolved_at',
  'action',
  'old_status',
  'new_status',
  'actor',
  'note',
  'at',
] as const;

type AuditRecord = Record<(typeof FINDING_AUDIT_COLUMNS)[number], string | number | null>;

// expected and actual are integer cents for a finding that measures money, other JSON (or null) otherwise.
const jsonCell = (value: unknown) =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : JSON.stringify(value);

function auditRecord(row: FindingAuditRow, timeZone: string): AuditRecord {
  return {
    finding_id: `fnd_${row.id}`,
    code: row.code,
    severity: row.severity,
    status: row.status,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    account_id: row.account_id,
    currency: row.currency,
    expected: jsonCell(row.expected),
    actual: jsonCell(row.actual),
    at_stake: row.at_stake,
    at_stake_decimal: row.at_stake === null ? null : decimal(row.at_stake),
    first_seen_at: row.first_seen_at.toISOString(),
    first_seen_day: businessDate(row.first_seen_at, timeZone),
    last_seen_at: row.last_seen_at.toISOString(),
    resolved_at: row.resolved_at?.toISOString() ?? null,
    action: row.action,
    old_status: row.old_status,
    new_status: row.new_status,
    actor: row.actor,
    note: row.note,
    at: row.at?.toISOString() ?? null,
  };
}

/** Every row of the audit trail, one batch of findings (with their history) read at a time. */
export async function* readFindingAuditTrail(
  db: Queryable,
  filter: FindingAuditFilter,
  batchSize = AUDIT_BATCH_FINDINGS,
): AsyncGenerator<AuditRecord> {
  let afterId = 0;
  for (;;) {
    const rows = await listFindingAuditBatch(db, filter, afterId, batchSize);
    for (const row of rows) yield auditRecord(row, filter.timeZone);
    // Rows come in id order, several per finding: fewer findings than asked for is the last batch.
    if (new Set(rows.map((row) => row.id)).size < batchSize) return;
    afterId = (rows.at(-1) as FindingAuditRow).id;
  }
}

/**
 * The CSV writer of the audit trail: a header row, then records. A cell that a spreadsheet would run as a
 * formula (text starting with =, +, -, @, a tab or a carriage return) gets a leading single quote
 * (csv-stringify's `escape_formulas`, OWASP's advice for CSV injection); numbers are left as they are.
 */
export const auditTrailWriter = () =>
  stringify({ header: true, columns: [...FINDING_AUDIT_COLUMNS], escape_formulas: true });
