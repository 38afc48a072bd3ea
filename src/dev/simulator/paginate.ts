import { SimulatorError } from './feeConfigurationStore.ts';

/** The seed's pagination: limit 1..100 (default and fallback 25), opaque cursors, edge cases. */
export function paginateList<T extends { id: string }>(items: T[], query: Record<string, unknown>) {
  const raw = Number(query.limit);
  const limit = Number.isInteger(raw) && raw >= 1 && raw <= 100 ? raw : 25;
  const indexOf = (cursor: unknown) => {
    const id = Buffer.from(String(cursor), 'base64url').toString();
    const index = items.findIndex((item) => item.id === id);
    if (index < 0) throw new SimulatorError(400, 'invalid_parameter', 'unknown cursor');
    return index;
  };
  let start = 0;
  let end = items.length;
  if (query.after_cursor !== undefined) start = indexOf(query.after_cursor) + 1;
  if (query.before_cursor !== undefined) end = indexOf(query.before_cursor);
  const page =
    query.before_cursor !== undefined
      ? items.slice(Math.max(start, end - limit), end)
      : items.slice(start, start + limit);
  const first = items.indexOf(page[0] as T);
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
