import { z } from 'zod';
import { importQuery } from '../routes/bankStatements.ts';
import { declinesQuery } from '../routes/declines.ts';
import { disputesQuery } from '../routes/disputes.ts';
import { keyPageQuery } from '../routes/keyPagination.ts';
import { pageQuery } from '../routes/pagination.ts';
import { payoutParams, payoutsQuery } from '../routes/payouts.ts';
import { reportsQuery } from '../routes/reports.ts';
import { type Answer, json, list, listQuery, notFound, type Operation, ok, text } from './operation.ts';
import * as schemas from './responses.ts';

const reportIdParam = z.object({ id: z.string().regex(/^rpt_[1-9]\d*$/) });
const statementImport = schemas.single(
  'BankStatementImportEnvelope',
  'bank_statement',
  schemas.statementImportSchema,
  'An import.',
);

/** Payouts, bank statements, disputes, declines and reports. */
export const moneyOperations: Operation[] = [
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
        description:
          'The file cannot be read in that format, breaks a limit (64 KB lines and XML text, elements 64 deep, BAI2 counts) or takes more than 60 s to read (`statement_invalid`); the message names the line and the problem.',
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
