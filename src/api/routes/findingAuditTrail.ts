import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { auditTrailWriter, readFindingAuditTrail } from '../../findings/auditTrail.ts';
import { HttpError } from '../errors.ts';
import { findingFilterQuery } from './findingFilter.ts';
import { calendarDate } from './params.ts';
import { route, text } from './route.ts';

/** First and last business day, both included; `code` and `status` as the JSON list takes them. */
export const findingAuditQuery = z.object({
  from: calendarDate(),
  to: calendarDate(),
  code: findingFilterQuery.shape.code,
  status: findingFilterQuery.shape.status,
});

/**
 * GET /api/findings.csv: the audit trail, streamed a batch of findings at a time so a long range never sits
 * in memory, and paced by the client (the next batch is read only once the previous one is sent).
 */
export const findingAuditTrailRoute = route({
  method: 'get',
  path: '/api/findings.csv',
  tag: 'Findings',
  auth: 'read',
  summary: 'The audit trail: findings first seen in a range of business days, one row per history entry',
  description:
    '`from` and `to` are business days (`BUSINESS_TIME_ZONE`), both included. Oldest finding first; a finding with no history is one row with empty history columns. Text a spreadsheet would run as a formula starts with a single quote.',
  query: findingAuditQuery,
  answers: { 200: { description: 'The CSV file.', content: { 'text/csv': text } } },
  handler:
    (deps) =>
    async (_req, res, { query }) => {
      if (query.to < query.from) throw new HttpError(400, 'invalid_parameter', 'to: must not be before from');
      const rows = readFindingAuditTrail(deps.reads.pool, {
        fromDay: query.from,
        toDay: query.to,
        timeZone: deps.config.BUSINESS_TIME_ZONE,
        code: query.code,
        status: query.status,
      });
      // The first batch is read before the answer starts, so a failure there is still an ordinary error answer.
      const first = await rows.next();
      res.type('text/csv; charset=utf-8').attachment(`findings-${query.from}-${query.to}.csv`);
      const records = async function* () {
        if (first.done) return;
        yield first.value;
        yield* rows;
      };
      try {
        await pipeline(Readable.from(records()), auditTrailWriter(), res);
      } catch (err) {
        // The status line is sent: a later failure can only cut the answer short, which the client sees as an
        // incomplete transfer rather than a whole-looking file. A client that went away is not a failure.
        if ((err as { code?: unknown }).code !== 'ERR_STREAM_PREMATURE_CLOSE')
          deps.log.error(err, 'GET /api/findings.csv failed while streaming');
        res.destroy();
      }
    },
});
