import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import express, { type Router } from 'express';
import { z } from 'zod';
import { importStatement } from '../../bank/importStatement.ts';
import { STATEMENT_FORMATS, StatementError } from '../../bank/statement.ts';
import { listStatements } from '../../bank/statementQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { list, single } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { oneOf, parseQuery } from './params.ts';

/** Bank statements are large files: this route alone reads up to this much, streamed, never held in memory. */
export const MAX_STATEMENT_BYTES = 256 * 1024 * 1024;

export const importQuery = z.object({ format: oneOf(STATEMENT_FORMATS) });

// The request body as it arrives, refused once it passes the limit.
async function* limited(req: IncomingMessage): AsyncGenerator<Buffer> {
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > MAX_STATEMENT_BYTES)
      throw new HttpError(413, 'payload_too_large', `a statement is at most ${MAX_STATEMENT_BYTES} bytes`);
    yield chunk;
  }
}

/**
 * POST /api/bank-statements?format=csv|camt053|bai2: the file as the bank exported it, raw, any content
 * type; GET /api/bank-statements lists the imports, newest first.
 */
export function bankStatementRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.post('/bank-statements', async (req, res) => {
    const { format } = parseQuery(importQuery, req.query);
    const encoding = req.get('content-encoding');
    if (encoding && encoding !== 'identity')
      throw new HttpError(415, 'encoding_unsupported', 'send the statement uncompressed');
    // The body goes to a file first, then is streamed from it into the import: the server's request timeout
    // bounds the upload only, not the import of hundreds of thousands of lines; memory stays flat either way.
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-statement-'));
    const file = path.join(dir, 'statement');
    const result = await pipeline(limited(req), createWriteStream(file))
      .then(() =>
        importStatement(deps.pool, createReadStream(file), {
          format,
          importedBy: req.principal?.name ?? 'api',
          now: deps.now(),
          config: deps.config,
        }),
      )
      .catch((err: unknown) => {
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
    const { data, pageInfo } = paginate(await listStatements(deps.pool, page), page);
    res.json(list(data, pageInfo));
  });
  return router;
}
