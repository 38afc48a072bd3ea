import { z } from 'zod';
import { noteBody } from '../routes/findings.ts';
import { journalQuery } from '../routes/periods.ts';
import { type Answer, json, type Operation, ok, text } from './operation.ts';
import { cents, count, named, timestamp } from './registry.ts';
import * as schemas from './responses.ts';

const periodParam = z.object({ period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/) });

const walk = z.strictObject({
  held_start: cents(),
  prior_period_adjustments: cents(),
  net: cents(),
  unexplained: cents(),
  paid_out: cents(),
  held_end: cents(),
});

const periodReport = named(
  'PeriodReport',
  'The close report of a period, per account and currency in integer cents: activity, payouts, bank, the walk (held_start + prior_period_adjustments + net + unexplained − paid_out = held_end), open items, and the journal movements.',
  z.looseObject({
    kind: z.literal('period'),
    period: z.string(),
    time_zone: z.string(),
    from: timestamp(),
    to: timestamp(),
    generated_at: timestamp(),
    adjusts: z.string().nullable(),
    accounts: z.array(
      z.looseObject({
        account_type: z.string(),
        account_id: z.string(),
        currency: z.string(),
        activity: z.record(z.string(), cents()),
        payouts: z.record(z.string(), cents()),
        bank: z.record(z.string(), cents()),
        walk,
        unexplained: z.looseObject({ total: cents(), remainder: cents() }),
      }),
    ),
    open_items: z.looseObject({ findings: z.array(z.looseObject({ code: z.string(), at_stake: cents() })) }),
    journal: z.array(
      z.looseObject({ currency: z.string(), day: z.iso.date(), kind: z.string(), amount: cents() }),
    ),
  }),
);

const periodSummary = named(
  'PeriodSummary',
  'A period: its state and, per currency (test and live apart), its net and open findings.',
  z.strictObject({
    period: z.string(),
    status: z.enum(['open', 'closed']),
    version: count().nullable(),
    closed_at: timestamp().nullable(),
    closed_by: z.string().nullable(),
    currencies: z.array(
      z.strictObject({ account_type: z.string(), currency: z.string(), net: cents(), open_items: count() }),
    ),
  }),
);

const history = z.array(
  z.strictObject({
    action: z.enum(['close', 'reopen']),
    version: count(),
    actor: z.string(),
    note: z.string().nullable(),
    created_at: timestamp(),
  }),
);

const closeState = {
  status: z.enum(['open', 'closed']),
  version: count().nullable(),
  closed_at: timestamp().nullable(),
  closed_by: z.string().nullable(),
  content_sha256: z.string().nullable(),
  cut_off: z
    .strictObject({
      last_delivery_received_at: timestamp().nullable(),
      last_sweep_at: timestamp().nullable(),
      last_payout_sync_at: timestamp().nullable(),
      newest_statement_date: z.iso.date().nullable(),
    })
    .nullable(),
  history,
};

const periodState = named(
  'PeriodState',
  "A period's state after a close or reopen: its current version (closed), the content hash and data cut-off of that version, and every close and reopen.",
  z.strictObject({ period: z.string(), ...closeState }),
);

const stateChange = (action: 'close' | 'reopen', summary: string, description: string): Operation => ({
  method: 'post',
  path: `/api/periods/{period}/${action}`,
  tag: 'Reports',
  auth: 'admin',
  summary,
  description,
  params: periodParam,
  body: { required: action === 'reopen', content: json(noteBody) },
  answers: {
    ...ok(
      'The period after the change.',
      schemas.single('PeriodStateEnvelope', 'period', periodState, 'A period state.'),
    ),
    400: {
      description: 'The period is malformed, before the earliest activity or not started.',
      content: json(schemas.errorSchema),
    },
    409: {
      description: 'The rules refuse it; the message names every reason. Nothing changed.',
      content: json(schemas.errorSchema),
    },
    422: {
      description: 'The note is missing (reopen) or is not text. Nothing changed.',
      content: json(schemas.errorSchema),
    },
  },
});

const reportFile = (extension: string, summary: string, content: Answer['content']): Operation => ({
  method: 'get',
  path: `/api/periods/{period}.${extension}`,
  tag: 'Reports',
  auth: 'read',
  summary,
  params: periodParam,
  answers: { 200: { description: summary, content } },
});

/** Month-end close: periods, their close reports and journals. */
export const periodOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/periods',
    tag: 'Reports',
    auth: 'read',
    summary: 'Every month from the earliest activity to the current one, newest first',
    answers: ok('Every period.', schemas.page('PeriodPage', periodSummary, 'The periods.')),
  },
  {
    method: 'get',
    path: '/api/periods/{period}',
    tag: 'Reports',
    auth: 'read',
    summary: 'The close report of a period (month to date for the current month)',
    description:
      'A period that is not `YYYY-MM`, is before the earliest activity or has not started is 400 naming `period`.',
    params: periodParam,
    answers: ok(
      'The close report.',
      schemas.single(
        'PeriodEnvelope',
        'period',
        periodReport.and(z.looseObject(closeState)),
        'A period close report with its state and history.',
      ),
    ),
  },
  stateChange(
    'close',
    'Close a period: store its report and journal as the next version',
    'Allowed once the period has ended, every earlier period with activity is closed, 24 h have passed since its end, and a missed-event sweep and a payout sync have completed since its end. The report and journal (with the account names configured now) are stored with a sha256 of their content, who closed it, when, and the data cut-off; they are served unchanged from then on. `note` is optional.',
  ),
  stateChange(
    'reopen',
    'Reopen the latest closed period',
    'Only the latest closed period; `note` is required. The period then shows its current numbers, and its adjustments leave the next period. Closing it again stores the next version.',
  ),
  reportFile('json', 'The close report as JSON', json(periodReport)),
  reportFile('csv', 'The close report, one row per account and currency', { 'text/csv': text }),
  reportFile('html', 'The close report as a printable page', { 'text/html': text }),
  {
    method: 'get',
    path: '/api/periods/{period}/journal',
    tag: 'Reports',
    auth: 'read',
    summary: 'The journal of a period for a general ledger',
    description:
      'Balanced entries, live money only, in `csv`, `xero` (manual journal import: one currency a file, at most 300 lines a part, the part count in `X-Parts`), `quickbooks` (IIF) or `netsuite`. `currency` is required for xero and quickbooks when the period has several.',
    params: periodParam,
    query: journalQuery,
    answers: {
      200: {
        description: 'The journal file.',
        content: { 'text/csv': text, 'text/plain': text },
      },
    },
  },
];
