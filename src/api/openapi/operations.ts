import { z } from 'zod';
import { queues } from '../../queue/queues.ts';
import { eventParams } from '../routes/events.ts';
import { findingAuditQuery } from '../routes/findingAuditTrail.ts';
import { ACTION_OF_PATH, findingsQuery, noteBody } from '../routes/findings.ts';
import { achReturnsQuery, alertsQuery } from '../routes/opsSignals.ts';
import { paymentParams } from '../routes/payments.ts';
import { moneyOperations } from './moneyOperations.ts';
import { json, list, listQuery, notFound, type Operation, ok, text } from './operation.ts';
import { periodOperations } from './periodOperations.ts';
import * as schemas from './responses.ts';

export type { Answer, Operation } from './operation.ts';

const findingId = z.object({ id: z.string().regex(/^fnd_[1-9]\d*$/) });
// The queues POST /api/jobs/:name starts: the registry's scheduled ones, each with the payload schema it parses.
const scheduledJobs = Object.entries(queues)
  .filter(([, queue]) => 'scheduled' in queue && queue.scheduled)
  .map(([name, queue]) => ({ name, payloadSchema: queue.payloadSchema as z.ZodType }));
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
    auth: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'A bearer token of any role (a `metrics` token reads this and nothing else). With `METRICS_PORT` set, served on that port only, without a token. The database gauges are collected at most every few seconds, from a pool of their own.',
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
    path: '/api/findings.csv',
    tag: 'Findings',
    auth: 'read',
    summary: 'The audit trail: findings first seen in a range of business days, one row per history entry',
    description:
      '`from` and `to` are business days (`BUSINESS_TIME_ZONE`), both included. Oldest finding first; a finding with no history is one row with empty history columns. Text a spreadsheet would run as a formula starts with a single quote.',
    query: findingAuditQuery,
    answers: { 200: { description: 'The CSV file.', content: { 'text/csv': text } } },
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
  ...moneyOperations,
  ...periodOperations,
];

/** A job's payload schema, titled with the job's name in the document. */
function titledPayload(job: (typeof scheduledJobs)[number]) {
  const payload = job.payloadSchema.clone();
  schemas.components.add(payload, { title: job.name, description: `The payload of \`${job.name}\`.` });
  return payload;
}
