import { z } from 'zod';
import { decodeChangeCursor } from '../../changes/changeCursor.ts';
import {
  changeSubscription,
  createSubscription,
  presentSubscriptions,
  replaySubscription,
  rotateSubscriptionSecret,
  subscriptionDetail,
} from '../../subscriptions/manageSubscriptions.ts';
import { SUBSCRIPTION_ID, subscriptionIdText } from '../../subscriptions/presentSubscription.ts';
import { deleteSubscription } from '../../subscriptions/queries.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import * as subscriptionSchemas from '../openapi/subscriptionSchemas.ts';
import { list, single } from './envelope.ts';
import { parseRowId, refusedAs } from './params.ts';
import { json, jsonBody, notFound, ok, type Route, refused, route } from './route.ts';
import { newSubscriptionBody, replayBody, subscriptionChangeBody } from './subscriptionBodies.ts';

const noSubscription = () => new HttpError(404, 'resource_not_found', 'no subscription with that id');

const subscriptionParams = z.object({
  id: refusedAs(
    z
      .string()
      .regex(SUBSCRIPTION_ID)
      .transform((value) => parseRowId(value.slice('sub_'.length)) ?? z.NEVER),
    noSubscription,
  ),
});

const TAG = 'Subscriptions';
const invalidBody = refused('A field is invalid; the message names it. Nothing changed.');
const subscription = schemas.single;
const withSecret = subscription(
  'SubscriptionWithSecretEnvelope',
  'subscription',
  subscriptionSchemas.subscriptionWithSecretSchema,
  'A subscription with its secret.',
);

const createRoute = route({
  method: 'post',
  path: '/api/subscriptions',
  tag: TAG,
  auth: 'admin',
  summary: 'Forward changes to a URL',
  description:
    '`url`: http or https, loopback and private addresses allowed, link-local and metadata addresses refused. `types`: change types or `object.*` (none: every type). Answers the secret that signs its deliveries, shown only here. It receives the changes made from now on.',
  body: jsonBody(newSubscriptionBody, { required: true }),
  answers: {
    201: { description: 'The subscription and its secret.', content: json(withSecret) },
    422: invalidBody,
  },
  handler:
    (deps) =>
    async (_req, res, { body }) => {
      const created = await createSubscription(deps.pool, body);
      res.status(201).json(single('subscription', created.id, created));
    },
});

const listRoute = route({
  method: 'get',
  path: '/api/subscriptions',
  tag: TAG,
  auth: 'read',
  summary: 'Subscriptions, with their state and lag',
  answers: ok('Every subscription, oldest first.', subscriptionSchemas.subscriptionListSchema),
  handler: (deps) => async (_req, res) => {
    const data = await presentSubscriptions(deps.pool, deps.now());
    res.json(list(data, { has_previous: false, has_next: false, start_cursor: null, end_cursor: null }));
  },
});

const readRoute = route({
  method: 'get',
  path: '/api/subscriptions/{id}',
  tag: TAG,
  auth: 'read',
  summary: 'A subscription, its last 100 attempts and the changes it gave up on',
  params: subscriptionParams,
  answers: {
    ...ok(
      'The subscription.',
      subscription(
        'SubscriptionEnvelope',
        'subscription',
        subscriptionSchemas.subscriptionDetailSchema,
        'One subscription.',
      ),
    ),
    ...notFound('subscription'),
  },
  handler:
    (deps) =>
    async (_req, res, { params }) => {
      const detail = await subscriptionDetail(deps.pool, params.id, deps.now());
      if (!detail) throw noSubscription();
      res.json(single('subscription', detail.id, detail));
    },
});

const changeRoute = route({
  method: 'patch',
  path: '/api/subscriptions/{id}',
  tag: TAG,
  auth: 'admin',
  summary: 'Change the url or types, or disable and enable',
  description:
    '`enabled: false` stops sending (changes keep being queued and the lag grows); `enabled: true` resumes from where it stopped, every waiting change due at once with its retry clock started over.',
  params: subscriptionParams,
  body: jsonBody(subscriptionChangeBody, { required: true }),
  answers: {
    ...ok(
      'The subscription after the change.',
      subscription(
        'SubscriptionChangedEnvelope',
        'subscription',
        subscriptionSchemas.subscriptionDetailSchema,
        'One subscription.',
      ),
    ),
    ...notFound('subscription'),
    422: invalidBody,
  },
  handler:
    (deps) =>
    async (_req, res, { params, body: change }) => {
      if (!(await changeSubscription(deps.pool, params.id, change, deps.now()))) throw noSubscription();
      const detail = await subscriptionDetail(deps.pool, params.id, deps.now());
      res.json(single('subscription', subscriptionIdText(params.id), detail));
    },
});

const deleteRoute = route({
  method: 'delete',
  path: '/api/subscriptions/{id}',
  tag: TAG,
  auth: 'admin',
  summary: 'Delete a subscription and what it still had to send',
  params: subscriptionParams,
  answers: { 204: { description: 'Deleted.' }, ...notFound('subscription') },
  handler:
    (deps) =>
    async (_req, res, { params }) => {
      if (!(await deleteSubscription(deps.pool, params.id))) throw noSubscription();
      res.status(204).end();
    },
});

const rotateRoute = route({
  method: 'post',
  path: '/api/subscriptions/{id}/rotate-secret',
  tag: TAG,
  auth: 'admin',
  summary: 'A new signing secret; the old one keeps signing for 24 h',
  description:
    'Answers the new secret, shown only here. For 24 hours every delivery carries two signatures, the new one first, so the receiver can switch without missing one.',
  params: subscriptionParams,
  answers: { ...ok('The subscription and its new secret.', withSecret), ...notFound('subscription') },
  handler:
    (deps) =>
    async (_req, res, { params }) => {
      const rotated = await rotateSubscriptionSecret(deps.pool, params.id, deps.now());
      if (!rotated) throw noSubscription();
      res.json(single('subscription', rotated.id, rotated));
    },
});

const replayRoute = route({
  method: 'post',
  path: '/api/subscriptions/{id}/replay',
  tag: TAG,
  auth: 'admin',
  summary: "Send the subscription's changes again from a cursor",
  description:
    '`after`: a cursor of `GET /api/changes` (none: every change kept). The changes after it of the subscription’s types are sent again under the same ids (`webhook-id`), each object’s in order; those given up on are sent again too.',
  params: subscriptionParams,
  body: jsonBody(replayBody, { required: false, limit: '4kb' }),
  answers: {
    ...ok(
      'How many changes were queued again.',
      subscription(
        'SubscriptionReplayEnvelope',
        'subscription_replay',
        subscriptionSchemas.replayedSchema,
        'A replay.',
      ),
    ),
    ...notFound('subscription'),
    422: invalidBody,
  },
  handler:
    (deps) =>
    async (_req, res, { params, body: { after } }) => {
      const afterSeq = after === undefined ? 0 : decodeChangeCursor(after);
      if (afterSeq === null)
        throw new HttpError(422, 'invalid_cursor', 'after: is not a cursor of GET /api/changes');
      if (!(await subscriptionDetail(deps.pool, params.id, deps.now()))) throw noSubscription();
      const queued = await replaySubscription(deps.pool, params.id, afterSeq, deps.now());
      const id = subscriptionIdText(params.id);
      res.json(single('subscription_replay', id, { subscription_id: id, queued }));
    },
});

export const subscriptionRoutes: Route[] = [
  createRoute,
  listRoute,
  readRoute,
  changeRoute,
  deleteRoute,
  rotateRoute,
  replayRoute,
];
