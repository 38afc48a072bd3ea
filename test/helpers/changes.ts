import request from 'supertest';
import type { Queryable } from '../../src/db/pool.ts';
import { API_TOKEN, type TestApp } from './app.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };

/**
 * Inserts one change row as a projection's transaction would, unnumbered: for tests of the feed's order that
 * need writers of their own timing rather than deliveries.
 */
export async function insertChangeRow(
  db: Queryable,
  change: { objectId: string; version?: number; accountId?: string; type?: string },
): Promise<void> {
  const type = change.type ?? 'payment.created';
  await db.query(
    `insert into changes (type, object, object_id, object_version, account_id, account_type, occurred_at, data)
     values ($1::text, split_part($1::text, '.', 1), $2::text, $3::int, $4::text, 'test', now(),
             jsonb_build_object('id', $2::text))`,
    [type, change.objectId, change.version ?? 1, change.accountId ?? 'acc_1'],
  );
}

export type ChangeBody = {
  id: string;
  seq: number;
  type: string;
  object: string;
  object_id: string;
  object_version: number;
  account_id: string | null;
  account_type: string | null;
  occurred_at: string;
  recorded_at: string;
  event_ids: string[];
  data: Record<string, unknown>;
};

/** Every change the feed lists from its start, page by page. */
export async function readWholeFeed(t: TestApp, query = ''): Promise<ChangeBody[]> {
  const all: ChangeBody[] = [];
  let after: string | null = null;
  for (;;) {
    const cursor: string = after === null ? '' : `&after=${after}`;
    const response = await request(t.app).get(`/api/changes?limit=500${cursor}${query}`).set(auth);
    if (response.status !== 200) throw new Error(`feed answered ${response.status}: ${response.text}`);
    all.push(...response.body.data);
    if (response.body.data.length === 0) return all;
    after = response.body.page_info.end_cursor;
  }
}
