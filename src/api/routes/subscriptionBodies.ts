/** What a subscription is made or changed with (API and console), each problem naming its field. */
import { z } from 'zod';
import { changeTypePatterns } from '../../changes/changeTypes.ts';
import { targetProblem } from '../../subscriptions/targets.ts';
import { freeText, storableText } from './params.ts';

const url = storableText({ maxLength: 2048 }).superRefine((value, context) => {
  const problem = targetProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
const description = freeText({ maxLength: 500 }).nullable();

export const newSubscriptionBody = z.strictObject({
  url,
  types: changeTypePatterns.optional(),
  description: description.optional(),
});

export const subscriptionChangeBody = z.strictObject({
  url: url.optional(),
  types: changeTypePatterns.optional(),
  description: description.optional(),
  enabled: z.boolean({ error: 'must be true or false' }).optional(),
});

export const replayBody = z.strictObject({
  after: z.string({ error: 'must be a cursor of GET /api/changes' }).max(200).optional(),
});
