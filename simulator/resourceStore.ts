import { SimulatorError } from './feeConfigurationStore.ts';
import type { Listing } from './paginate.ts';

/** What the store needs of a payment or forwarding request; every other field is kept as given. */
export type StoredResource = { id: string; account_id: string; created_at: string; [field: string]: unknown };

type Entry = { createdMs: number; resource: StoredResource };

/** Newest first by `created_at`, ties by id (descending, like the fee configuration history). */
const newestFirst = (a: Entry, b: Entry) =>
  b.createdMs - a.createdMs || (a.resource.id < b.resource.id ? 1 : a.resource.id > b.resource.id ? -1 : 0);

/** The checked shape of an object put into the store: a test's typo fails here, not as an empty list. */
export function asStoredResource(object: unknown, kind: string): StoredResource {
  const candidate = (typeof object === 'object' && object !== null ? object : {}) as Record<string, unknown>;
  for (const field of ['id', 'account_id', 'created_at']) {
    if (typeof candidate[field] !== 'string' || candidate[field] === '')
      throw new SimulatorError(422, 'parameter_missing', `${kind}.${field} must be a non-empty string`);
  }
  if (Number.isNaN(Date.parse(candidate.created_at as string)))
    throw new SimulatorError(422, 'invalid_parameter', `${kind}.created_at is not a date`);
  return candidate as StoredResource;
}

/**
 * Objects the simulated API lists per sub account, newest first. Each account's list stays sorted (an
 * insert is a binary search and one splice; a bulk load sorts once), and an id index per list is rebuilt
 * only after the order changed, so paging through 100,000 payments never re-sorts or scans per request.
 */
export function createResourceStore() {
  const byId = new Map<string, Entry>();
  const lists = new Map<string, { entries: Entry[]; positions: Map<string, number> | null }>();
  const listOf = (account: string) => {
    const existing = lists.get(account);
    if (existing) return existing;
    const list = { entries: [] as Entry[], positions: null as Map<string, number> | null };
    lists.set(account, list);
    return list;
  };
  // The first index at which `entry` sorts no earlier than what is there.
  const insertionPoint = (entries: Entry[], entry: Entry) => {
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (newestFirst(entries[middle] as Entry, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const positionsOf = (list: { entries: Entry[]; positions: Map<string, number> | null }) => {
    if (!list.positions)
      list.positions = new Map(list.entries.map((entry, index) => [entry.resource.id, index]));
    return list.positions;
  };
  const remove = (entry: Entry) => {
    const list = listOf(entry.resource.account_id);
    const index = insertionPoint(list.entries, entry);
    if (list.entries[index] === entry) list.entries.splice(index, 1);
    list.positions = null;
  };

  return {
    /** Adds a resource, or replaces the stored state of its id (moving it if its account or creation changed). */
    put(resource: StoredResource) {
      const entry: Entry = { createdMs: Date.parse(resource.created_at), resource };
      const previous = byId.get(resource.id);
      byId.set(resource.id, entry);
      if (
        previous &&
        previous.createdMs === entry.createdMs &&
        previous.resource.account_id === resource.account_id
      ) {
        // Same place in the order: swap the state in without touching the index.
        const list = listOf(resource.account_id);
        list.entries[insertionPoint(list.entries, previous)] = entry;
        return;
      }
      if (previous) remove(previous);
      const list = listOf(resource.account_id);
      list.entries.splice(insertionPoint(list.entries, entry), 0, entry);
      list.positions = null;
    },
    /** Many new resources at once (ids not yet stored): one sort per account instead of an insert each. */
    putMany(resources: StoredResource[]) {
      const ids = new Set(resources.map((resource) => resource.id));
      if (ids.size < resources.length || resources.some((resource) => byId.has(resource.id)))
        throw new Error('putMany takes only ids not stored yet');
      const touched = new Set<string>();
      for (const resource of resources) {
        const entry: Entry = { createdMs: Date.parse(resource.created_at), resource };
        byId.set(resource.id, entry);
        listOf(resource.account_id).entries.push(entry);
        touched.add(resource.account_id);
      }
      for (const account of touched) {
        const list = listOf(account);
        list.entries.sort(newestFirst);
        list.positions = null;
      }
    },
    get: (id: string): StoredResource | null => byId.get(id)?.resource ?? null,
    /** An account's resources, newest first, created in [createdAfter, createdBefore) when given, as a listing. */
    listing(
      account: string,
      range: { createdAfter?: Date; createdBefore?: Date } = {},
    ): Listing<StoredResource> {
      const list = listOf(account);
      const bound = (at: Date | undefined, fallback: number) =>
        at
          ? insertionPoint(list.entries, { createdMs: at.getTime(), resource: { id: '' } as StoredResource })
          : fallback;
      // Newest first: entries created after `createdAfter` come before its insertion point, and so on.
      const from = bound(range.createdBefore, 0);
      const to = Math.max(from, bound(range.createdAfter, list.entries.length));
      const positions = positionsOf(list);
      return {
        length: to - from,
        at: (index) => (list.entries[from + index] as Entry).resource,
        positionOf(id) {
          const position = positions.get(id);
          return position === undefined || position < from || position >= to ? -1 : position - from;
        },
      };
    },
  };
}

export type ResourceStore = ReturnType<typeof createResourceStore>;
