import { SimulatorError } from './feeConfigurationStore.ts';

/**
 * A list to page through without copying it: the payments store keeps 100,000 sorted entries and an id
 * index, so a page costs O(limit), not a scan or a copy of the whole list per request.
 */
export type Listing<T> = {
  length: number;
  at(index: number): T;
  /** The index of the first item with this id, or -1. */
  positionOf(id: string): number;
};

/** A plain array as a listing; its cursor lookup scans, which is fine for the short fee configuration lists. */
export function arrayListing<T extends { id: string }>(items: T[]): Listing<T> {
  return {
    length: items.length,
    at: (index) => items[index] as T,
    positionOf: (id) => items.findIndex((item) => item.id === id),
  };
}

/** The seed's pagination: limit 1..100 (default and fallback 25), opaque cursors, edge cases. */
export function paginateList<T extends { id: string }>(
  list: T[] | Listing<T>,
  query: Record<string, unknown>,
) {
  const items = Array.isArray(list) ? arrayListing(list) : list;
  const raw = Number(query.limit);
  const limit = Number.isInteger(raw) && raw >= 1 && raw <= 100 ? raw : 25;
  const indexOf = (cursor: unknown) => {
    const index = items.positionOf(Buffer.from(String(cursor), 'base64url').toString());
    if (index < 0) throw new SimulatorError(400, 'invalid_parameter', 'unknown cursor');
    return index;
  };
  let start = 0;
  let end = items.length;
  if (query.after_cursor !== undefined) start = indexOf(query.after_cursor) + 1;
  if (query.before_cursor !== undefined) end = indexOf(query.before_cursor);
  // As `slice` would: a page runs from `first` up to (not including) `stop`, clamped to the list.
  const first = query.before_cursor !== undefined ? Math.max(start, end - limit) : start;
  const stop = Math.min(query.before_cursor !== undefined ? end : start + limit, items.length);
  const page: T[] = [];
  for (let index = first; index < stop; index++) page.push(items.at(index));
  const last = first + page.length - 1;
  const cursor = (item: T | undefined) => (item ? Buffer.from(item.id).toString('base64url') : null);
  return {
    id: null,
    type: 'array',
    data: page,
    page_info: {
      has_previous: page.length > 0 ? first > 0 : start > 0,
      has_next: page.length > 0 ? last < items.length - 1 : false,
      start_cursor: cursor(page[0]),
      end_cursor: cursor(page.at(-1)),
    },
  };
}
