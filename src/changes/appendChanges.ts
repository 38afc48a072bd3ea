import type { Queryable } from '../db/pool.ts';
import type { ChangeObject, ChangeType } from './changeTypes.ts';

/** How a table's row is read for its change: SQL over the row as `o`, joined to nothing else unless told. */
export type ObjectTable = {
  object: ChangeObject;
  table: string;
  /** The row as the API shows it, without bookkeeping: a change is appended only when this differs. */
  shown: string;
  accountId: string;
  accountType: string;
  /** The provider's time of the snapshot now shown. */
  occurredAt: string;
  /** Joins the expressions above may use, e.g. a refund's payment. */
  joins?: string;
};

/** An object written by a batch, and the stored delivery (events row id) whose rows wrote it. */
export type WrittenObject = { id: string; eventRowId: number };

/** An object whose shown row changed: the change to append, before its data is read. */
export type ChangedObject = {
  object_id: string;
  object_version: number;
  account_id: string | null;
  account_type: string | null;
  occurred_at: Date;
  event_ids: string[];
};

/**
 * `versioned`: a new version of each object written whose shown row differs from the one its last change
 * carried (compared by digest), with `current`, what the change says of it. Objects written by several
 * deliveries of the batch count once and name every delivery. The version row stays locked until commit, and
 * the caller already holds the lock of the object's own row, so concurrent writers of one object number its
 * versions in turn. Parameters: $1 the ids, $2 their deliveries' events row ids, $3 the object.
 */
const changedObjects = (spec: ObjectTable) => `with written as (
       select w.id, coalesce(array_agg(distinct e.event_id) filter (where e.event_id is not null), '{}') as event_ids,
              (array_agg(e.account_id order by w.event_row_id desc))[1] as event_account_id,
              (array_agg(e.account_type order by w.event_row_id desc))[1] as event_account_type
         from unnest($1::text[], $2::bigint[]) as w(id, event_row_id)
         left join events e on e.id = w.event_row_id
        group by w.id),
     current as (
       select o.id, coalesce(${spec.accountId}, w.event_account_id) as account_id,
              coalesce(${spec.accountType}, w.event_account_type) as account_type,
              coalesce(nullif(${spec.occurredAt}, '-infinity'::timestamptz), now()) as occurred_at,
              md5((${spec.shown})::text)::uuid as digest, w.event_ids
         from ${spec.table} o join written w on w.id = o.id ${spec.joins ?? ''}),
     versioned as (
       insert into change_versions as v (object, object_id, version, row_digest)
       select $3::text, id, 1, digest from current order by id
       on conflict (object, object_id) do update set version = v.version + 1, row_digest = excluded.row_digest
        where v.row_digest is distinct from excluded.row_digest
       returning object_id, version)`;

const parameters = (spec: ObjectTable, written: WrittenObject[]) => [
  written.map((object) => object.id),
  written.map((object) => object.eventRowId),
  spec.object,
];

/**
 * Appends a change for each object written whose shown row changed, with `data` (SQL over the row as `o`)
 * as the API shows the object, in one statement: the object's JSON never leaves the database.
 */
export async function appendChangedObjects(
  db: Queryable,
  spec: ObjectTable & { data: string },
  written: WrittenObject[],
): Promise<void> {
  if (written.length === 0) return;
  await db.query(
    `${changedObjects(spec)}
     insert into changes (type, object, object_id, object_version, account_id, account_type, occurred_at,
                          event_ids, data)
     select $3::text || case when v.version = 1 then '.created' else '.updated' end, $3::text, c.id, v.version,
            c.account_id, c.account_type, c.occurred_at, c.event_ids, ${spec.data}
       from versioned v join current c on c.id = v.object_id
       join ${spec.table} o on o.id = c.id ${spec.joins ?? ''}
      order by c.id`,
    parameters(spec, written),
  );
}

/** The objects of `appendChangedObjects` whose data the caller reads itself, their versions recorded. */
export async function recordChangedObjects(
  db: Queryable,
  spec: ObjectTable,
  written: WrittenObject[],
): Promise<ChangedObject[]> {
  if (written.length === 0) return [];
  const { rows } = await db.query<ChangedObject>(
    `${changedObjects(spec)}
     select c.id as object_id, v.version as object_version, c.account_id, c.account_type, c.occurred_at,
            c.event_ids
       from versioned v join current c on c.id = v.object_id
      order by c.id`,
    parameters(spec, written),
  );
  return rows;
}

/** A change ready to append: its data is the object as the API shows it after the change. */
export type ChangeDraft = ChangedObject & { type: ChangeType; object: ChangeObject; data: unknown };

/** The type of an object's change: its first version is its creation. */
export function changeTypeOf(object: Exclude<ChangeObject, 'finding'>, version: number): ChangeType {
  return `${object}.${version === 1 ? 'created' : 'updated'}`;
}

/** Appends changes, unnumbered (the sequencer numbers them once this transaction commits), in one statement. */
export async function insertChanges(db: Queryable, drafts: ChangeDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  await db.query(
    `insert into changes (type, object, object_id, object_version, account_id, account_type, occurred_at,
                          event_ids, data)
     select type, object, object_id, object_version, account_id, account_type, occurred_at, event_ids, data
       from jsonb_to_recordset($1::jsonb) as r(type text, object text, object_id text, object_version int,
              account_id text, account_type text, occurred_at timestamptz, event_ids text[], data jsonb)`,
    [JSON.stringify(drafts)],
  );
}

/**
 * The next version of each object, whatever changed: for objects whose every recorded change is one (a
 * finding's opening or status change), so their digest is never compared (it holds the id's). The version
 * row stays locked until commit.
 */
export async function nextVersions(
  db: Queryable,
  object: ChangeObject,
  objectIds: string[],
): Promise<Map<string, number>> {
  if (objectIds.length === 0) return new Map();
  const { rows } = await db.query<{ object_id: string; version: number }>(
    `insert into change_versions as v (object, object_id, version, row_digest)
     select $1::text, id, 1, md5(id)::uuid from unnest($2::text[]) as o(id) order by id
     on conflict (object, object_id) do update set version = v.version + 1
     returning object_id, version`,
    [object, objectIds],
  );
  return new Map(rows.map((row) => [row.object_id, row.version]));
}
