import type { Queryable } from '../db/pool.ts';

/** A change as the feed and forwarding show it. */
export type Change = {
  id: string;
  seq: number;
  type: string;
  object: string;
  object_id: string;
  object_version: number;
  account_id: string | null;
  account_type: string | null;
  occurred_at: Date;
  recorded_at: Date;
  event_ids: string[];
  data: unknown;
};

export type FeedFilter = {
  /** Exact types (`payment.updated`); with `objects`, a change matching either is listed. */
  types: string[];
  /** Objects named by an `object.*` pattern. */
  objects: string[];
  accountId: string | null;
};

/** One read of the feed: the page, the last position numbered and the last one retention removed. */
export type FeedRead = { changes: Change[]; lastSeq: number; purgedThrough: number };

/**
 * Up to `limit` numbered changes after position `after`, in `seq` order, read in one statement with the
 * sequencer's row, so `lastSeq` is the position every change of this snapshot is at or below.
 */
export async function readFeed(
  db: Queryable,
  after: number,
  filter: FeedFilter,
  limit: number,
): Promise<FeedRead> {
  const anyType = filter.types.length === 0 && filter.objects.length === 0;
  const { rows } = await db.query<
    Omit<Change, 'id' | 'seq'> & { seq: number | null; last_seq: number; purged_through: number }
  >(
    `select s.last_seq, s.purged_through, c.*
       from change_sequencer s
       left join lateral (
         select seq, type, object, object_id, object_version, account_id, account_type, occurred_at,
                recorded_at, event_ids, data
           from changes
          where seq > $1::bigint
            and ($2::boolean or type = any($3::text[]) or object = any($4::text[]))
            and ($5::text is null or account_id = $5::text)
          order by seq
          limit $6::int) c on true
      order by c.seq`,
    [after, anyType, filter.types, filter.objects, filter.accountId, limit],
  );
  const first = rows[0];
  return {
    changes: rows.flatMap(({ last_seq: _last, purged_through: _purged, seq, ...change }) =>
      seq === null ? [] : [{ id: `chg_${seq}`, seq, ...change }],
    ),
    lastSeq: first?.last_seq ?? 0,
    purgedThrough: first?.purged_through ?? 0,
  };
}
