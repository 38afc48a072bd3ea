import { z } from 'zod';
import { decodeChangeCursor, encodeChangeCursor } from '../../changes/changeCursor.ts';
import { CHANGE_TYPES, changeTypePatterns } from '../../changes/changeTypes.ts';
import { readChanges } from '../../changes/readChanges.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list } from './envelope.ts';
import { customIssue, storableText } from './params.ts';
import { ok, refused, route } from './route.ts';

const MAX_LIMIT = 500;
const MAX_WAIT_SECONDS = 30;

const changeCursor = () =>
  z.string().transform((value, context) => {
    const seq = decodeChangeCursor(value);
    if (seq === null) {
      context.addIssue(customIssue('invalid_cursor', 'is not a cursor this feed returned'));
      return z.NEVER;
    }
    return seq;
  });

// The value is never echoed: the message names the parameter and what it takes.
const typeList = () =>
  z.string().transform((value, context) => {
    const patterns = value.split(',');
    if (!changeTypePatterns.safeParse(patterns).success) {
      context.addIssue({
        code: 'custom',
        message: 'must be change types (payment.updated) or object.* patterns, comma separated',
      });
      return z.NEVER;
    }
    return patterns;
  });

const wholeNumber = (min: number, max: number, unit = '') =>
  z
    .string()
    .regex(/^\d{1,6}$/, `must be a whole number from ${min} to ${max}${unit}`)
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be a whole number from ${min} to ${max}${unit}`);

export const changesQuery = z.object({
  after: changeCursor().optional(),
  types: typeList().optional(),
  account_id: storableText().optional(),
  limit: wholeNumber(1, MAX_LIMIT).optional(),
  wait: wholeNumber(0, MAX_WAIT_SECONDS, ' seconds').optional(),
});

/** `types` as exact types and whole objects (`payment.*`), as the feed's query takes them. */
function filterOf(patterns: string[], accountId: string | undefined) {
  const exact = new Set<string>(CHANGE_TYPES);
  return {
    types: patterns.filter((pattern) => exact.has(pattern)),
    objects: patterns.filter((pattern) => pattern.endsWith('.*')).map((pattern) => pattern.slice(0, -2)),
    accountId: accountId ?? null,
  };
}

/** GET /api/changes: every change in `seq` order, from a cursor; `wait` holds the request until one comes. */
export const changesRoute = route({
  method: 'get',
  path: '/api/changes',
  tag: 'Changes',
  auth: 'read',
  summary:
    'Changes to payments, refunds, disputes, checkouts, forwarding requests, payouts and findings, oldest first',
  description:
    'Pass `page_info.end_cursor` as `after` to read on; without `after` the feed starts at the oldest change kept. ' +
    '`wait` (seconds) holds the request until a change is there; an empty page keeps the cursor it was given. ' +
    'A cursor older than what CHANGE_RETENTION_DAYS keeps is 410, naming the oldest cursor still served.',
  query: changesQuery,
  answers: {
    ...ok(
      'Changes after the cursor, oldest first.',
      schemas.page('ChangePage', schemas.changeSchema, 'Changes in feed order.'),
    ),
    410: refused(
      'The cursor is older than the changes kept: resync, then read from the cursor the message names.',
    ),
  },
  handler:
    (deps) =>
    async (_req, res, { query }) => {
      const closed = new AbortController();
      res.on('close', () => closed.abort());
      const limit = query.limit ?? 100;
      const answer = await readChanges(deps.pool, {
        after: query.after ?? null,
        filter: filterOf(query.types ?? [], query.account_id),
        limit,
        waitMs: (query.wait ?? 0) * 1000,
        signal: closed.signal,
      });
      if (answer.expired)
        throw new HttpError(
          410,
          'cursor_expired',
          `after: older than the changes kept; the oldest cursor still served is ${encodeChangeCursor(answer.oldest)}`,
        );
      const { changes, lastSeq, after } = answer;
      const last = changes.at(-1);
      // A short page read everything up to the last position of its snapshot: a filtered reader moves past
      // the changes it skipped. An empty page keeps the cursor it was given.
      const end = last === undefined ? after : changes.length < limit ? lastSeq : last.seq;
      res.json(
        list(changes, {
          has_previous: after > 0,
          has_next: end < lastSeq,
          start_cursor: encodeChangeCursor(after),
          end_cursor: encodeChangeCursor(end),
        }),
      );
    },
});
