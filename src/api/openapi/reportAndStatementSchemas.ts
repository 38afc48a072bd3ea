import { z } from 'zod';
import { STATEMENT_FORMATS } from '../../bank/statement.ts';
import { REPORT_KINDS } from '../../reports/queries.ts';
import { count, named, timestamp } from './registry.ts';

const text = () => z.string();
const optionalText = () => z.string().nullable();

export const reportListItemSchema = named(
  'ReportSummary',
  'A stored report and where to read it as JSON, CSV or HTML.',
  z.strictObject({
    id: z.string().regex(/^rpt_\d+$/),
    kind: z.enum(REPORT_KINDS),
    period: optionalText().describe(
      'The day (YYYY-MM-DD) a daily report covers, the month (YYYY-MM) of a period report; null for a fee-configuration report.',
    ),
    created_at: timestamp(),
    links: z.strictObject({ json: z.string(), csv: z.string(), html: z.string() }),
  }),
);
export const reportSchema = named(
  'Report',
  "A stored report: its kind, period and body (sections as the daily or fee-configuration report writes them; a period report is the month's close report as `GET /api/periods/{period}.json` served it when the `period-report` job built it).",
  z.strictObject({
    id: z.string().regex(/^rpt_\d+$/),
    kind: z.enum(REPORT_KINDS),
    period: z.string().nullable(),
    created_at: timestamp(),
    body: z.record(z.string(), z.unknown()),
  }),
);
export const reportBodySchema = named(
  'ReportBody',
  'A report body as stored, indented: the same JSON as `data.body` of the report.',
  z.record(z.string(), z.unknown()),
);

const statementCounts = {
  id: z.int().positive(),
  lines: count(),
  credits: count(),
  duplicates: count(),
  matched: count(),
};

export const statementImportSchema = named(
  'BankStatementImport',
  'What the import found: lines read, credits among them, lines already imported from another file, and credits matched to a payout.',
  z.strictObject(statementCounts),
);

export const statementSchema = named(
  'BankStatement',
  'An imported bank statement: the account and days it covers, its counts, who imported it and when.',
  z.strictObject({
    ...statementCounts,
    format: z.enum(STATEMENT_FORMATS),
    bank_account: optionalText(),
    covers_from: z.iso.date().nullable(),
    covers_to: z.iso.date().nullable(),
    currencies: z.array(z.string()).nullable(),
    file_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    imported_by: text(),
    imported_at: timestamp(),
  }),
);
