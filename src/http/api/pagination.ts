import { HttpError } from '../errors.ts';
import type { PageInfo } from './envelope.ts';

/** A list route's page from its query: `limit`, `after_cursor`, `before_cursor`. */
export function pageFromQuery(query: Record<string, unknown>) {
  return {
    limit: parseLimit(query.limit),
    afterId: decodeCursor(query.after_cursor, 'after_cursor'),
    beforeId: decodeCursor(query.before_cursor, 'before_cursor'),
  };
}

/** The provider's rule: default 25, 1 to 100, anything else falls back to 25. */
export function parseLimit(value: unknown): number {
  const limit = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return limit >= 1 && limit <= 100 ? limit : 25;
}

export function encodeCursor(id: number): string {
  return Buffer.from(`id:${id}`).toString('base64url');
}

export function decodeCursor(value: unknown, name: string): number | null {
  if (value === undefined) return null;
  const match =
    typeof value === 'string' ? /^id:(\d+)$/.exec(Buffer.from(value, 'base64url').toString()) : null;
  if (!match) throw new HttpError(400, 'invalid_cursor', `${name} is not a cursor this API returned`);
  return Number(match[1]);
}

/**
 * One page of rows fetched newest first (or, with before_cursor, oldest first), one row over the limit
 * to tell whether more exist; returns the rows newest first and the provider-style page_info.
 */
export function paginate<Row extends { id: number }>(
  rows: Row[],
  page: { limit: number; afterId: number | null; beforeId: number | null },
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
      start_cursor: first ? encodeCursor(first.id) : null,
      end_cursor: last ? encodeCursor(last.id) : null,
    },
  };
}
