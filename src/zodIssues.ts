import type { z } from 'zod';

/**
 * The one wording of schema problems, for every edge (webhook envelope, event data, query strings, job
 * payloads, configuration): `<path>: <problem>`, or `<path>: missing`. The value itself is never shown:
 * it may be a card number or a secret. `root` names a problem of the whole input.
 */
export function issueLines(error: z.ZodError, root: string, limit = 5): string[] {
  return error.issues.slice(0, limit).map((issue) => {
    const path = issue.path.map(String).join('.') || root;
    // zod words an absent required field as a type mismatch with `undefined`.
    const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
    return missing ? `${path}: missing` : `${path}: ${issue.message}`;
  });
}

/** `issueLines` joined into one sentence. */
export function describeIssues(error: z.ZodError, root: string, limit = 5): string {
  return issueLines(error, root, limit).join('; ');
}
