import { z } from 'zod';
import type { PageInfo } from './envelope.ts';
import { pageOf, parseLimit } from './pagination.ts';
import { customIssue, parseQuery, storableText } from './params.ts';

// Rows keyed by a provider id (a payout's `po_…`) page by that id: the cursor names the row, and the query
// places it by its sort key, so a cursor stays valid however many rows arrive in between.
const PREFIX = 'key:';
const keyText = storableText();

export function encodeKeyCursor(key: string): string {
  return Buffer.from(`${PREFIX}${key}`).toString('base64url');
}

/** The key of a cursor this API returned, or null; re-encoding must give the same text, so no aliases. */
export function decodeKeyCursor(value: string): string | null {
  const decoded = Buffer.from(value, 'base64url').toString();
  if (!decoded.startsWith(PREFIX)) return null;
  const key = decoded.slice(PREFIX.length);
  return keyText.safeParse(key).success && encodeKeyCursor(key) === value ? key : null;
}

const keyCursor = () =>
  z.string().transform((value, context) => {
    const key = decodeKeyCursor(value);
    if (key === null) {
      context.addIssue(customIssue('invalid_cursor', 'is not a cursor this API returned'));
      return z.NEVER;
    }
    return key;
  });

export const keyPageQuery = z.object({
  limit: z.string().optional().transform(parseLimit),
  after_cursor: keyCursor().optional(),
  before_cursor: keyCursor().optional(),
});

/** A keyed list's page from its query: `limit`, `after_cursor`, `before_cursor`, as the numbered lists. */
export function keyPageFromQuery(query: unknown) {
  const page = parseQuery(keyPageQuery, query);
  return { limit: page.limit, afterId: page.after_cursor ?? null, beforeId: page.before_cursor ?? null };
}

/** `paginate` for rows keyed by text: the rows newest first, and the provider-style page_info. */
export function paginateByKey<Row extends { id: string }>(
  rows: Row[],
  page: { limit: number; afterId: string | null; beforeId: string | null },
): { data: Row[]; pageInfo: PageInfo } {
  return pageOf(rows, page, (row) => encodeKeyCursor(row.id));
}
