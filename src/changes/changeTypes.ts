/**
 * The kinds of change the feed and forwarding carry (docs/changes.md): each projected object is created, then
 * updated; a finding is opened, then changes status. A consumer names types exactly (`payment.updated`) or by
 * object (`payment.*`).
 */
import { z } from 'zod';

export const CHANGE_OBJECTS = [
  'payment',
  'refund',
  'dispute',
  'checkout',
  'forwarding_request',
  'payout',
] as const;
export type ChangeObject = (typeof CHANGE_OBJECTS)[number] | 'finding';

export const FINDING_CHANGE_ACTIONS = ['opened', 'acknowledged', 'accepted', 'resolved', 'reopened'] as const;

export const CHANGE_TYPES = [
  ...CHANGE_OBJECTS.flatMap((object) => [`${object}.created`, `${object}.updated`] as const),
  ...FINDING_CHANGE_ACTIONS.map((action) => `finding.${action}` as const),
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

const PATTERNS: ReadonlySet<string> = new Set([
  ...CHANGE_TYPES,
  ...[...CHANGE_OBJECTS, 'finding'].map((object) => `${object}.*`),
]);

/** A list of types and `object.*` patterns, comma separated in a query string or an array in a body. */
export const changeTypePatterns = z
  .array(z.string().max(64))
  .max(CHANGE_TYPES.length + CHANGE_OBJECTS.length + 1)
  .superRefine((patterns, context) => {
    for (const pattern of patterns) {
      if (!PATTERNS.has(pattern))
        context.addIssue({ code: 'custom', message: `unknown change type ${pattern}` });
    }
  });

/** Whether a change's type is named by the patterns; an empty list names every type. */
export function typeMatches(patterns: readonly string[], type: string): boolean {
  if (patterns.length === 0) return true;
  const object = type.slice(0, type.indexOf('.'));
  return patterns.some((pattern) => pattern === type || pattern === `${object}.*`);
}
