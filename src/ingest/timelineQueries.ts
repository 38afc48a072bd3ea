import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../db/pool.ts';
import { rawText, withParsedBody } from './queries.ts';

export type TimelineEntry = {
  id: number;
  event_id: string | null;
  event_name: string | null;
  source: string;
  status: string;
  received_at: Date;
  body: Record<string, unknown> | null;
  /** The same object state as an earlier entry (another event id or an API snapshot carrying equal data). */
  duplicate: boolean;
  conflicts: number;
};

/** Every delivery and API snapshot about a payment or anything naming it, in arrival order. */
export async function listPaymentTimeline(db: Queryable, paymentId: string): Promise<TimelineEntry[]> {
  const { rows } = await db.query<Omit<TimelineEntry, 'body' | 'duplicate'> & { raw_text: string | null }>(
    `select e.id, e.event_id, e.event_name, e.source, e.status, e.received_at, ${rawText('e')},
            (select count(*) from event_conflicts c where c.event_id = e.event_id)::int as conflicts
       from events e
      where e.payment_id = $1::text
      order by e.received_at, e.id
      limit 500`,
    [paymentId],
  );
  const entries = rows.map(withParsedBody) as Omit<TimelineEntry, 'duplicate'>[];
  const duplicates = duplicateIds(entries);
  return entries.map((entry) => ({ ...entry, duplicate: duplicates.has(entry.id) }));
}

/**
 * The entries whose `data` equals that of an entry stored before them (a lower row id). Bodies are stored
 * as raw bytes only, so this compares parsed bodies here; a cheap key of top-level names and plain values
 * narrows the deep comparisons to likely matches.
 */
function duplicateIds(entries: { id: number; body: Record<string, unknown> | null }[]): Set<number> {
  const earlierByKey = new Map<string, unknown[]>();
  const duplicates = new Set<number>();
  for (const { id, body } of [...entries].sort((a, b) => a.id - b.id)) {
    const data = body?.data;
    if (typeof data !== 'object' || data === null) continue;
    const key = JSON.stringify(
      Object.entries(data)
        .map(([name, value]) => (typeof value === 'object' && value !== null ? [name] : [name, value]))
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const earlier = earlierByKey.get(key);
    if (earlier === undefined) earlierByKey.set(key, [data]);
    else {
      if (earlier.some((other) => isDeepStrictEqual(other, data))) duplicates.add(id);
      earlier.push(data);
    }
  }
  return duplicates;
}
