import type { Reads } from '../db/readPool.ts';

/**
 * `read_replica` of GET /api/status: null without DATABASE_READ_URL; otherwise where lag-tolerant reads go now,
 * the replica's lag at the last check (seconds, null when it could not say), when that was, and why reads are
 * on the primary (`lag`, `unreachable`, `not_a_standby`; null while they are on the replica).
 */
export function readReplicaStatus(reads: Reads) {
  const replica = reads.replica;
  if (replica === null) return null;
  return {
    reads_from: replica.readsFrom,
    lag_s: replica.lagSeconds,
    checked_at: replica.checkedAt?.toISOString() ?? null,
    fallback_reason: replica.fallbackReason,
  };
}
