import { z } from 'zod';
import type { PageInfo } from './envelope.ts';
import { customIssue, parseQuery, parseRowId } from './params.ts';

/** A cursor this API returned, as the row id it stands for; anything else is 400 `invalid_cursor`. */
export function cursor() {
  return z.string().transform((value, context) => {
    const id = decodeCursor(value);
    if (id === null) {
      context.addIssue(customIssue('invalid_cursor', 'is not a cursor this API returned'));
      return z.NEVER;
    }
    return id;
  });
}

export const pageQuery = z.object({
  limit: z.string().optional().transform(parseLimit),
  after_cursor: cursor().optional(),
  before_cursor: cursor().optional(),
});

/** A list route's page from its query: `limit`, `after_cursor`, `before_cursor`. */
export function pageFromQuery(query: unknown) {
  const page = parseQuery(pageQuery, query);
  return { limit: page.limit, afterId: page.after_cursor ?? null, beforeId: page.before_cursor ?? null };
}

/** The provider's rule: default 25, 1 to 100, anything else falls back to 25. */
export function parseLimit(value: unknown): number {
  const limit = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return limit >= 1 && limit <= 100 ? limit : 25;
}

export function encodeCursor(id: number): string {
  return Buffer.from(`id:${id}`).toString('base64url');
}

/** The row id of a cursor this API returned, or null; re-encoding must give the same text, so no aliases. */
export function decodeCursor(value: string): number | null {
  const match = /^id:(\d+)$/.exec(Buffer.from(value, 'base64url').toString());
  const id = match?.[1] === undefined ? null : parseRowId(match[1]);
  return id !== null && encodeCursor(id) === value ? id : null;
}

/**
 * One page of rows fetched newest first (or, with before_cursor, oldest first), one row over the limit
 * to tell whether more exist; returns the rows newest first and the provider-style page_info.
 */
export function paginate<Row extends { id: number }>(
  rows: Row[],
  page: { limit: number; afterId: number | null; beforeId: number | null },
): { data: Row[]; pageInfo: PageInfo } {
  return pageOf(rows, page, (row) => encodeCursor(row.id));
}

/** `paginate` for any row: `cursorOf` gives the cursor that names a row. */
export function pageOf<Row>(
  rows: Row[],
  page: { limit: number; afterId: number | string | null; beforeId: number | string | null },
  cursorOf: (row: Row) => string,
): { data: Row[]; pageInfo: PageInfo } {
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  const backwards = page.beforeId !== null;
  const data = backwards ? kept.reverse() : kept;
  const first = data[0];
  const last = data.at(-1);
  return {
    data,
    pageInfo: {
      has_previous: backwards ? more : page.afterId !== null,
      has_next: backwards ? true : more,
      start_cursor: first ? cursorOf(first) : null,
      end_cursor: last ? cursorOf(last) : null,
    },
  };
}
