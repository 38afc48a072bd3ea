import type { Queryable } from './pool.ts';

/** A WAL position (`16/B374D848`) as a number, so positions read from two servers compare. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** How far the primary has written its WAL. */
export async function readPrimaryWalPosition(primary: Queryable): Promise<bigint> {
  const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
  return lsnValue((rows[0] as { lsn: string }).lsn);
}

export type StandbyReplay = {
  /** False: the server is no standby (a promoted replica, or the primary itself), so it follows nothing. */
  inRecovery: boolean;
  replayedLsn: bigint | null;
  /** Seconds since the newest transaction it replayed committed on the primary; null before its first one. */
  sinceLastReplaySeconds: number | null;
};

export async function readStandbyReplay(standby: Queryable): Promise<StandbyReplay> {
  const { rows } = await standby.query<{
    in_recovery: boolean;
    replayed_lsn: string | null;
    since_last_replay_s: number | null;
  }>(
    `select pg_is_in_recovery() as in_recovery,
            pg_last_wal_replay_lsn()::text as replayed_lsn,
            extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as since_last_replay_s`,
  );
  const row = rows[0] as NonNullable<(typeof rows)[0]>;
  return {
    inRecovery: row.in_recovery,
    replayedLsn: row.replayed_lsn === null ? null : lsnValue(row.replayed_lsn),
    sinceLastReplaySeconds: row.since_last_replay_s,
  };
}

/**
 * The standby's lag in seconds, given the primary's WAL position read just before it: 0 once it has replayed
 * that far, however long ago its last replayed transaction committed (on an idle primary that age only grows);
 * otherwise the age of its last replayed transaction, which on a busy primary is how far behind it reads.
 * Null when neither says: behind, with no transaction replayed since it started.
 */
export function lagSeconds(primaryPosition: bigint, replay: StandbyReplay): number | null {
  if (replay.replayedLsn !== null && replay.replayedLsn >= primaryPosition) return 0;
  if (replay.sinceLastReplaySeconds === null) return null;
  // The two servers' clocks differ by a little: a standby is never ahead.
  return Math.max(0, replay.sinceLastReplaySeconds);
}
