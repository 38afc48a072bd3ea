import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import express, { type Router } from 'express';
import { z } from 'zod';
import { importStatement } from '../../bank/importStatement.ts';
import { MAX_STATEMENT_BYTES, STATEMENT_FORMATS, StatementError } from '../../bank/statement.ts';
import { listStatements } from '../../bank/statementQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { list, single } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { oneOf, parseQuery } from './params.ts';

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

/**
 * POST /api/bank-statements?format=csv|camt053|bai2: the file as the bank exported it, raw, any content
 * type; GET /api/bank-statements lists the imports, newest first.
 */
export function bankStatementRoutes(deps: AppDeps): Router {
  const router = express.Router();
  const maxBytes = deps.statementLimits?.maxBytes ?? MAX_STATEMENT_BYTES;
  router.post('/bank-statements', async (req, res) => {
    const { format } = parseQuery(importQuery, req.query);
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
  });
  router.get('/bank-statements', async (req, res) => {
    const page = pageFromQuery(req.query);
    const { data, pageInfo } = paginate(await listStatements(deps.reads.pool, page), page);
    res.json(list(data, pageInfo));
  });
  return router;
}
