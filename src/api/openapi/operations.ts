import { z } from 'zod';
import { jobs } from '../../../jobs/index.ts';
import { importQuery } from '../routes/bankStatements.ts';
import { declinesQuery } from '../routes/declines.ts';
import { disputesQuery } from '../routes/disputes.ts';
import { eventParams } from '../routes/events.ts';
import { ACTION_OF_PATH, findingsQuery, noteBody } from '../routes/findings.ts';
import { keyPageQuery } from '../routes/keyPagination.ts';
import { achReturnsQuery, alertsQuery } from '../routes/opsSignals.ts';
import { pageQuery } from '../routes/pagination.ts';
import { paymentParams } from '../routes/payments.ts';
import { payoutParams, payoutsQuery } from '../routes/payouts.ts';
import { reportsQuery } from '../routes/reports.ts';
import * as schemas from './responses.ts';

/** One answer: a status's description and, per media type, the body's schema (none: an empty body). */
export type Answer = { description: string; content?: Record<string, z.ZodType | Record<string, unknown>> };

/** One route as the document states it; `path` is OpenAPI's template, `{name}` for a path parameter. */
export type Operation = {
  method: 'get' | 'post';
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** `read`: any API token; `admin`: an admin token; `none`: no token. */
  auth: 'read' | 'admin' | 'none';
  query?: z.ZodObject;
  /** Path parameters: the route's own schema, or a pattern for ids that are parsed by hand. */
  params?: z.ZodObject;
  headers?: z.ZodObject;
  body?: { required: boolean; content: Record<string, z.ZodType | Record<string, unknown>> };
  answers: Record<number, Answer>;
};

const json = (schema: z.ZodType) => ({ 'application/json': schema });
const text = { type: 'string' } as const;
const ok = (description: string, schema: z.ZodType): Record<number, Answer> => ({
  200: { description, content: json(schema) },
});
const listQuery = (filters: z.ZodObject, paging: z.ZodObject = pageQuery) =>
  z.object({ ...filters.shape, ...paging.shape });
const notFound = (what: string): Record<number, Answer> => ({
  404: { description: `No ${what} with that id.`, content: json(schemas.errorSchema) },
});

const findingId = z.object({ id: z.string().regex(/^fnd_[1-9]\d*$/) });
const reportIdParam = z.object({ id: z.string().regex(/^rpt_[1-9]\d*$/) });
const scheduledJobs = jobs.filter((job) => job.scheduled);
const statementImport = schemas.single(
  'BankStatementImportEnvelope',
  'bank_statement',
  schemas.statementImportSchema,
  'An import.',
);
const findingEnvelope = schemas.single(
  'FindingEnvelope',
  'finding',
  schemas.findingWithHistorySchema,
  'One finding.',
);

/** Every route of `/api`, `/webhooks` and the health checks, in the order a reader meets them. */
export const operations: Operation[] = [
  {
    method: 'post',
    path: '/webhooks',
    tag: 'Webhooks',
    auth: 'none',
    summary: 'Receive a signed delivery from the provider',
    description:
      'The raw body is verified against `WEBHOOK_SECRETS` (HMAC-SHA256 of `timestamp.body`), stored once, and acknowledged; processing happens later. Up to 1 MiB.',
    headers: z.object({ 'justifi-timestamp': z.string(), 'justifi-signature': z.string() }),
    body: { required: true, content: { 'application/json': z.record(z.string(), z.unknown()) } },
    answers: {
      ...ok('Stored, or already stored (`duplicate`).', schemas.webhookAckSchema),
      400: {
        description: 'The body is not UTF-8 JSON, or was not completely received.',
        content: json(schemas.errorSchema),
      },
      401: { description: 'Missing, stale or wrong signature.', content: json(schemas.errorSchema) },
      413: { description: 'The body exceeds 1 MiB.', content: json(schemas.errorSchema) },
      415: { description: 'Unsupported content encoding.', content: json(schemas.errorSchema) },
      503: {
        description: 'Not stored (database unavailable): retry later.',
        content: json(schemas.errorSchema),
      },
    },
  },
  {
    method: 'get',
    path: '/healthz',
    tag: 'Health',
    auth: 'none',
    summary: 'The process is up',
    answers: ok('Up.', z.strictObject({ status: z.literal('ok') })),
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Health',
    auth: 'none',
    summary: 'The database is reachable',
    answers: {
      ...ok('Ready.', z.strictObject({ status: z.literal('ready') })),
      503: { description: 'The database is not reachable.', content: json(schemas.errorSchema) },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Health',
    auth: 'none',
    summary: 'Prometheus metrics',
    answers: { 200: { description: 'The text exposition format.', content: { 'text/plain': text } } },
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    tag: 'Documentation',
    auth: 'none',
    summary: 'This document',
    answers: { 200: { description: 'OpenAPI 3.1.', content: json(z.record(z.string(), z.unknown())) } },
  },
  {
    method: 'get',
    path: '/api/docs',
    tag: 'Documentation',
    auth: 'none',
    summary: 'This document, to read in a browser',
    answers: { 200: { description: 'The viewer page.', content: { 'text/html': text } } },
  },
  {
    method: 'get',
    path: '/api/docs/{file}',
    tag: 'Documentation',
    auth: 'none',
    summary: "The viewer's script and stylesheet",
    params: z.object({ file: z.string() }),
    answers: {
      200: { description: 'The file.', content: { 'text/javascript': text, 'text/css': text } },
      404: { description: 'Not a file of the viewer.', content: json(schemas.errorSchema) },
    },
  },
  {
    method: 'get',
    path: '/api/status',
    tag: 'Operations',
    auth: 'read',
    summary: 'Backlogs, lags and the last runs of scheduled work',
    answers: ok(
      'The current status.',
      schemas.single('StatusEnvelope', 'status', schemas.statusSchema, 'Status.'),
    ),
  },
  {
    method: 'get',
    path: '/api/events/{id}',
    tag: 'Events',
    auth: 'read',
    summary: 'A stored delivery by its event id',
    params: eventParams,
    answers: {
      ...ok('The event.', schemas.single('EventEnvelope', 'event', schemas.eventSchema, 'One event.')),
      ...notFound('event'),
    },
  },
  {
    method: 'get',
    path: '/api/payments/{id}',
    tag: 'Payments',
    auth: 'read',
    summary: 'A payment with its fees, refunds, returned fees and findings',
    params: paymentParams,
    answers: {
      ...ok(
        'The payment.',
        schemas.single('PaymentEnvelope', 'payment', schemas.paymentSchema, 'One payment.'),
      ),
      ...notFound('payment'),
    },
  },
  {
    method: 'get',
    path: '/api/payouts',
    tag: 'Payouts',
    auth: 'read',
    summary: 'Payouts, newest deposit first',
    description: '`deposits_after` is inclusive, `deposits_before` exclusive; a date is its start in UTC.',
    query: listQuery(payoutsQuery, keyPageQuery),
    answers: ok('A page of payouts.', schemas.page('PayoutPage', schemas.payoutSchema, 'A page of payouts.')),
  },
  {
    method: 'get',
    path: '/api/payouts/{id}',
    tag: 'Payouts',
    auth: 'read',
    summary: 'A payout with every line and its check',
    params: payoutParams,
    answers: {
      ...ok(
        'The payout.',
        schemas.single('PayoutEnvelope', 'payout', schemas.payoutDetailSchema, 'One payout.'),
      ),
      ...notFound('payout'),
    },
  },
  {
    method: 'get',
    path: '/api/payouts/{id}.csv',
    tag: 'Payouts',
    auth: 'read',
    summary: "A payout's lines as CSV, one row per line",
    params: payoutParams,
    answers: { 200: { description: 'The CSV file.', content: { 'text/csv': text } }, ...notFound('payout') },
  },
  {
    method: 'get',
    path: '/api/findings',
    tag: 'Findings',
    auth: 'read',
    summary: 'Findings, newest first (or by money at stake)',
    query: listQuery(findingsQuery),
    answers: ok(
      'A page of findings.',
      schemas.page('FindingPage', schemas.findingSchema, 'A page of findings.'),
    ),
  },
  {
    method: 'get',
    path: '/api/findings/{id}',
    tag: 'Findings',
    auth: 'read',
    summary: 'A finding with its history',
    params: findingId,
    answers: {
      ...ok('The finding.', findingEnvelope),
      ...notFound('finding'),
    },
  },
  {
    method: 'post',
    path: '/api/findings/{id}/{action}',
    tag: 'Findings',
    auth: 'admin',
    summary: 'Acknowledge, accept or reopen a finding, or add a note',
    description:
      '`accept` and `notes` need a note. Every change is kept in the history with its token and time.',
    params: findingId.extend({ action: z.enum([...ACTION_OF_PATH.keys()] as [string, ...string[]]) }),
    body: { required: false, content: json(noteBody) },
    answers: {
      ...ok('The finding after the change.', findingEnvelope),
      404: { description: 'No finding with that id, or no such action.', content: json(schemas.errorSchema) },
      409: {
        description: 'The action does not apply to the finding’s status.',
        content: json(schemas.errorSchema),
      },
      422: { description: 'The note is missing or is not text.', content: json(schemas.errorSchema) },
    },
  },
  list(
    '/api/alerts',
    'Operations',
    'Ops alerts, newest first',
    alertsQuery,
    'AlertPage',
    schemas.alertSchema,
  ),
  list(
    '/api/ach-returns',
    'Findings',
    'ACH returns, newest first',
    achReturnsQuery,
    'AchReturnPage',
    schemas.achReturnSchema,
  ),
  list(
    '/api/disputes',
    'Payments',
    'Disputes, newest first',
    disputesQuery,
    'DisputePage',
    schemas.disputeSchema,
  ),
  list(
    '/api/declines',
    'Payments',
    'Declined payments, newest first',
    declinesQuery,
    'DeclinePage',
    schemas.declineSchema,
  ),
  list(
    '/api/reports',
    'Reports',
    'Stored reports, newest first',
    reportsQuery,
    'ReportPage',
    schemas.reportListItemSchema,
  ),
  {
    method: 'get',
    path: '/api/reports/{id}',
    tag: 'Reports',
    auth: 'read',
    summary: 'A stored report',
    params: reportIdParam,
    answers: {
      ...ok('The report.', schemas.single('ReportEnvelope', 'report', schemas.reportSchema, 'One report.')),
      ...notFound('report'),
    },
  },
  reportFile('json', 'The report body as indented JSON', { 'application/json': schemas.reportBodySchema }),
  reportFile('csv', 'The report as CSV', { 'text/csv': text }),
  reportFile('html', 'The report as a printable page', { 'text/html': text }),
  {
    method: 'post',
    path: '/api/jobs/{name}',
    tag: 'Operations',
    auth: 'admin',
    summary: 'Run a scheduled job now',
    description: `The body, if any, is the job's payload: ${scheduledJobs.map((job) => `\`${job.name}\``).join(', ')}.`,
    params: z.object({ name: z.enum(scheduledJobs.map((job) => job.name) as [string, ...string[]]) }),
    body: {
      required: false,
      content: json(z.union(scheduledJobs.map(titledPayload))),
    },
    answers: {
      202: {
        description: 'Queued.',
        content: json(schemas.single('JobEnvelope', 'job', schemas.jobStartedSchema, 'A queued job.')),
      },
      404: { description: 'No scheduled job of that name.', content: json(schemas.errorSchema) },
      422: { description: 'The payload is not what the job takes.', content: json(schemas.errorSchema) },
    },
  },
  {
    method: 'post',
    path: '/api/bank-statements',
    tag: 'Payouts',
    auth: 'admin',
    summary: 'Import a bank statement',
    description:
      'The file exactly as the bank exported it, sent raw with any content type; `format` says how to read it. Importing the same file again answers the earlier import (200). Up to 256 MiB, uncompressed.',
    query: importQuery,
    body: {
      required: true,
      content: Object.fromEntries(
        ['text/csv', 'application/xml', 'text/plain', 'application/octet-stream'].map((type) => [
          type,
          { type: 'string', contentMediaType: type },
        ]),
      ),
    },
    answers: {
      201: {
        description: 'Imported.',
        content: json(statementImport),
      },
      ...ok('This file was imported before: the earlier import, nothing stored again.', statementImport),
      422: {
        description: 'The file cannot be read in that format (`statement_invalid`).',
        content: json(schemas.errorSchema),
      },
    },
  },
  {
    method: 'get',
    path: '/api/bank-statements',
    tag: 'Payouts',
    auth: 'read',
    summary: 'Imported bank statements, newest first',
    query: pageQuery,
    answers: ok(
      'A page.',
      schemas.page('BankStatementPage', schemas.statementSchema, 'A page of bank statements.'),
    ),
  },
];

/** A job's payload schema, titled with the job's name in the document. */
function titledPayload(job: (typeof scheduledJobs)[number]) {
  const payload = job.payloadSchema.clone();
  schemas.components.add(payload, { title: job.name, description: `The payload of \`${job.name}\`.` });
  return payload;
}

function list(path: string, tag: string, summary: string, filters: z.ZodObject, id: string, item: z.ZodType) {
  return {
    method: 'get',
    path,
    tag,
    auth: 'read',
    summary,
    query: listQuery(filters),
    answers: ok(`A page.`, schemas.page(id, item, summary)),
  } satisfies Operation;
}

function reportFile(extension: string, summary: string, content: Answer['content']): Operation {
  return {
    method: 'get',
    path: `/api/reports/{id}.${extension}`,
    tag: 'Reports',
    auth: 'read',
    summary,
    params: reportIdParam,
    answers: { 200: { description: summary, content }, ...notFound('report') },
  };
}
