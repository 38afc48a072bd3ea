import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { importStatement } from '../../bank/importStatement.ts';
import { MAX_STATEMENT_BYTES, STATEMENT_FORMATS, StatementError } from '../../bank/statement.ts';
import { listStatements } from '../../bank/statementQueries.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list, single } from './envelope.ts';
import { paginate } from './pagination.ts';
import { oneOf } from './params.ts';
import { json, ok, refused, route } from './route.ts';

export const importQuery = z.object({ format: oneOf(STATEMENT_FORMATS) });

const tooLarge = (maxBytes: number) =>
  new HttpError(413, 'payload_too_large', `a statement is at most ${maxBytes} bytes`);

/**
 * The request body as it arrives, refused once it passes the limit. The request is not destroyed then (the
 * route drops the rest of the body), so the client, still sending, reads the 413 rather than a reset.
 */
async function* limited(req: IncomingMessage, maxBytes: number): AsyncGenerator<Buffer> {
  let received = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > maxBytes) throw tooLarge(maxBytes);
    yield chunk;
  }
}

const statementImport = schemas.single(
  'BankStatementImportEnvelope',
  'bank_statement',
  schemas.statementImportSchema,
  'An import.',
);

/** POST /api/bank-statements?format=csv|camt053|bai2: the file as the bank exported it, raw, any content type. */
export const importStatementRoute = route({
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
    201: { description: 'Imported.', content: json(statementImport) },
    ...ok('This file was imported before: the earlier import, nothing stored again.', statementImport),
    422: refused(
      'The file cannot be read in that format, breaks a limit (64 KB lines and XML text, elements 64 deep, BAI2 counts) or takes more than 60 s to read (`statement_invalid`); the message names the line and the problem.',
    ),
  },
  handler:
    (deps) =>
    async (req, res, { query: { format } }) => {
      const maxBytes = deps.statementLimits?.maxBytes ?? MAX_STATEMENT_BYTES;
      const encoding = req.get('content-encoding');
      if (encoding && encoding !== 'identity')
        throw new HttpError(415, 'encoding_unsupported', 'send the statement uncompressed');
      // Refused before a byte is read; Node reads and drops the unread body once the answer is sent.
      if (Number(req.get('content-length')) > maxBytes) throw tooLarge(maxBytes);
      // The body goes to a file first, then is streamed from it into the import: the server's request timeout
      // bounds the upload only, not the import of hundreds of thousands of lines; memory stays flat either way.
      // The parser's worker thread reads the file from there.
      const dir = await mkdtemp(path.join(deps.config.UPLOAD_DIR ?? tmpdir(), 'tally-statement-'));
      const file = path.join(dir, 'statement');
      const result = await pipeline(limited(req, maxBytes), createWriteStream(file))
        .then(() =>
          importStatement(deps.pool, file, {
            format,
            importedBy: req.principal?.name ?? 'api',
            now: deps.now(),
            config: deps.config,
            parseBudgetMs: deps.statementLimits?.parseBudgetMs,
          }),
        )
        .catch((err: unknown) => {
          if (err instanceof HttpError && err.status === 413) req.resume();
          if (err instanceof StatementError) throw new HttpError(422, 'statement_invalid', err.message);
          if (req.destroyed && !req.complete)
            throw new HttpError(400, 'request_aborted', 'request body was not completely received');
          throw err;
        })
        .finally(() => rm(dir, { recursive: true, force: true }));
      const { created, ...counts } = result;
      deps.log.info({ statement: counts, actor: req.principal?.name }, 'bank statement imported');
      res.status(created ? 201 : 200).json(single('bank_statement', String(counts.id), counts));
    },
});

/** GET /api/bank-statements: the imports, newest first. */
export const statementsRoute = route({
  method: 'get',
  path: '/api/bank-statements',
  tag: 'Payouts',
  auth: 'read',
  summary: 'Imported bank statements, newest first',
  paging: 'rows',
  answers: ok(
    'A page.',
    schemas.page('BankStatementPage', schemas.statementSchema, 'A page of bank statements.'),
  ),
  handler:
    (deps) =>
    async (_req, res, { page }) => {
      const { data, pageInfo } = paginate(await listStatements(deps.reads.pool, page), page);
      res.json(list(data, pageInfo));
    },
});
