import { z } from 'zod';
import { changeFinding } from '../../findings/changeFindings.ts';
import { findingIdText } from '../../findings/findingId.ts';
import { presentFinding } from '../../findings/presentFinding.ts';
import { FINDING_ORDERS, listFindings } from '../../findings/readQueries.ts';
import type { WorkflowAction } from '../../findings/workflow.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list, single } from './envelope.ts';
import { findingIdParam, findingWithHistory } from './findingAnswers.ts';
import { findingFilterFrom, findingFilterQuery } from './findingFilter.ts';
import { paginate } from './pagination.ts';
import { noteBody, oneOf, refusedAs } from './params.ts';
import { jsonBody, notFound, ok, refused, route } from './route.ts';

// The contract's path words: notes are added to `/notes`.
const ACTION_OF_PATH = new Map<string, WorkflowAction>([
  ['acknowledge', 'acknowledge'],
  ['accept', 'accept'],
  ['reopen', 'reopen'],
  ['notes', 'note'],
]);

const findingParams = z.object({ id: findingIdParam });
const findingEnvelope = schemas.single(
  'FindingEnvelope',
  'finding',
  schemas.findingWithHistorySchema,
  'One finding.',
);

export const listFindingsRoute = route({
  method: 'get',
  path: '/api/findings',
  tag: 'Findings',
  auth: 'read',
  summary: 'Findings, newest first (or by money at stake)',
  description: '`from` and `to` are UTC days, both included, of when a finding was first seen.',
  query: findingFilterQuery.extend({ sort: oneOf(FINDING_ORDERS).optional() }),
  paging: 'rows',
  answers: ok(
    'A page of findings.',
    schemas.page('FindingPage', schemas.findingSchema, 'A page of findings.'),
  ),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const rows = await listFindings(deps.reads.pool, findingFilterFrom(query), page, query.sort);
      const { data, pageInfo } = paginate(rows, page);
      res.json(list(data.map(presentFinding), pageInfo));
    },
});

export const findingRoute = route({
  method: 'get',
  path: '/api/findings/{id}',
  tag: 'Findings',
  auth: 'read',
  summary: 'A finding with its history',
  params: findingParams,
  answers: { ...ok('The finding.', findingEnvelope), ...notFound('finding') },
  handler:
    (deps) =>
    async (_req, res, { params: { id } }) => {
      const finding = await findingWithHistory(deps.pool, id);
      res.json(single('finding', findingIdText(id), finding));
    },
});

export const changeFindingRoute = route({
  method: 'post',
  path: '/api/findings/{id}/{action}',
  tag: 'Findings',
  auth: 'admin',
  summary: 'Acknowledge, accept or reopen a finding, or add a note',
  description:
    '`accept` and `notes` need a note. Every change is kept in the history with its token and time.',
  params: findingParams.extend({
    action: refusedAs(
      z.enum([...ACTION_OF_PATH.keys()] as [string, ...string[]]),
      () =>
        new HttpError(
          404,
          'resource_not_found',
          `no such action; known: ${[...ACTION_OF_PATH.keys()].join(', ')}`,
        ),
    ),
  }),
  body: jsonBody(noteBody, { required: false }),
  answers: {
    ...ok('The finding after the change.', findingEnvelope),
    404: refused('No finding with that id, or no such action.'),
    409: refused('The action does not apply to the finding’s status.'),
    422: refused('The note is missing or is not text.'),
  },
  handler:
    (deps) =>
    async (req, res, { params, body }) => {
      const action = ACTION_OF_PATH.get(params.action) as WorkflowAction;
      const id = params.id;
      const note = body.note || null;
      const actor = req.principal?.name as string;
      await changeFinding(deps.pool, id, { action, note, actor, at: deps.now() });
      res.json(single('finding', findingIdText(id), await findingWithHistory(deps.pool, id)));
    },
});
