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

// Primary positions kept per meter: a standby stuck for a day at 2-second checks would keep 43,200; the oldest is
// the one that bounds the lag, so samples are dropped after it.
const MAX_SAMPLES = 1_000;

/**
 * Measures a standby's lag in seconds, check after check, each given the primary's WAL position read just before
 * the standby's replay. 0 once it has replayed that far, however long ago its last transaction committed (on an
 * idle primary that age only grows). Behind, the smaller of two bounds on how stale its reads are: the age of its
 * last replayed transaction (on a busy primary, how far behind it reads), and the time since an earlier check
 * read a primary position it has replayed (it shows at least what the primary had then). Null when neither says:
 * behind, with no transaction replayed since it started and no earlier check it has caught up with.
 */
export function createLagMeter(): (
  at: Date,
  primaryPosition: bigint,
  replay: StandbyReplay,
) => number | null {
  let samples: { at: number; position: bigint }[] = [];
  return (at, primaryPosition, replay) => {
    const now = at.getTime();
    if (replay.replayedLsn !== null && replay.replayedLsn >= primaryPosition) {
      samples = [{ at: now, position: primaryPosition }];
      return 0;
    }
    const replayed = replay.replayedLsn;
    const caughtUpTo =
      replayed === null ? -1 : samples.findLastIndex((sample) => sample.position <= replayed);
    if (caughtUpTo > 0) samples = samples.slice(caughtUpTo);
    samples.push({ at: now, position: primaryPosition });
    if (samples.length > MAX_SAMPLES) samples.splice(1, 1);
    const bounds = [
      caughtUpTo >= 0 ? (now - (samples[0] as { at: number }).at) / 1000 : null,
      // The two servers' clocks differ by a little: a standby is never ahead.
      replay.sinceLastReplaySeconds === null ? null : Math.max(0, replay.sinceLastReplaySeconds),
    ].filter((bound) => bound !== null);
    return bounds.length === 0 ? null : Math.min(...bounds);
  };
}
