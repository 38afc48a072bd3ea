import express, { type Router } from 'express';
import { z } from 'zod';
import type { Pool } from '../../db/pool.ts';
import { changeFinding, WorkflowError } from '../../findings/changeFindings.ts';
import { findFinding, listFindingHistory } from '../../findings/historyQueries.ts';
import { FINDING_ORDERS, listFindings } from '../../findings/queries.ts';
import type { WorkflowAction } from '../../findings/workflow.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { list, single } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { freeText, oneOf, parseQuery, parseRowId, text } from './params.ts';

export const FINDING_STATUSES = ['open', 'acknowledged', 'accepted', 'resolved'] as const;

export const findingsQuery = z.object({
  code: text().optional(),
  status: oneOf(FINDING_STATUSES).optional(),
  subject_id: text().optional(),
  account_id: text().optional(),
  currency: text().optional(),
  sort: oneOf(FINDING_ORDERS).optional(),
});

// A note is free text: newlines and tabs are fine, other control characters and broken text are not.
export const noteBody = z.object({
  note: freeText({ maxLength: 2000 }).optional(),
});

// The contract's path words: notes are added to `/notes`.
export const ACTION_OF_PATH = new Map<string, WorkflowAction>([
  ['acknowledge', 'acknowledge'],
  ['accept', 'accept'],
  ['reopen', 'reopen'],
  ['notes', 'note'],
]);

export function findingRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/findings', async (req, res) => {
    const query = parseQuery(findingsQuery, req.query);
    const page = pageFromQuery(req.query);
    const filter = {
      code: query.code,
      status: query.status,
      subjectId: query.subject_id,
      accountId: query.account_id,
      currency: query.currency,
    };
    const rows = await listFindings(deps.reads.pool, filter, page, query.sort);
    const { data, pageInfo } = paginate(rows, page);
    res.json(list(data.map(presentFinding), pageInfo));
  });
  router.get('/findings/:id', async (req, res) => {
    const id = findingIdOf(req.params.id);
    const finding = await findingWithHistory(deps.pool, id);
    res.json(single('finding', `fnd_${id}`, finding));
  });
  router.post('/findings/:id/:action', express.json({ limit: '16kb' }), async (req, res) => {
    const action = ACTION_OF_PATH.get(req.params.action as string);
    if (!action)
      throw new HttpError(
        404,
        'resource_not_found',
        `no such action; known: ${[...ACTION_OF_PATH.keys()].join(', ')}`,
      );
    const id = findingIdOf(req.params.id);
    const body: unknown = req.body ?? {};
    const parsed = noteBody.safeParse(
      typeof body === 'object' && body !== null && !Array.isArray(body) ? body : null,
    );
    if (!parsed.success)
      throw new HttpError(422, 'invalid_parameter', 'note: must be text (body {"note": "…"})');
    const actor = req.principal?.name as string;
    await applyFindingChange(deps.pool, id, {
      action,
      note: parsed.data.note || null,
      actor,
      at: deps.now(),
    });
    res.json(single('finding', `fnd_${id}`, await findingWithHistory(deps.pool, id)));
  });
  return router;
}

/** The row id of a `fnd_…` path id; anything else names no finding (404). */
export function findingIdOf(value: string | undefined): number {
  const match = /^fnd_(\d+)$/.exec(value ?? '');
  const id = match?.[1] === undefined ? null : parseRowId(match[1]);
  if (id === null) throw new HttpError(404, 'resource_not_found', 'no finding with that id');
  return id;
}

/** A workflow change with its refusals as HTTP answers: 404 unknown, 409 not from this status, 422 no note. */
export async function applyFindingChange(
  pool: Pool,
  id: number,
  request: Parameters<typeof changeFinding>[2],
) {
  try {
    return await changeFinding(pool, id, request);
  } catch (err) {
    if (!(err instanceof WorkflowError)) throw err;
    const status = { not_found: 404, invalid_transition: 409, note_required: 422 }[err.reason];
    const code = {
      not_found: 'resource_not_found',
      invalid_transition: 'invalid_transition',
      note_required: 'note_required',
    }[err.reason];
    throw new HttpError(status, code, err.message);
  }
}

export async function findingWithHistory(pool: Pool, id: number) {
  const finding = await findFinding(pool, id);
  if (!finding) throw new HttpError(404, 'resource_not_found', 'no finding with that id');
  return { ...presentFinding(finding), history: await listFindingHistory(pool, id) };
}

/** The contract shape: ids are `fnd_`-prefixed like the provider's. */
export function presentFinding(row: Record<string, unknown>) {
  return { ...row, id: `fnd_${row.id}` };
}
