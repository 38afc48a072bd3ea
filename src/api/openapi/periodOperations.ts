import { z } from 'zod';
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
      schemas.single('PeriodEnvelope', 'period', periodReport, 'A period close report.'),
    ),
  },
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
