import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../logger.ts';
import { createPool, type Pool } from './pool.ts';
import { createLagMeter, readPrimaryWalPosition, readStandbyReplay } from './replicaLag.ts';

/** How often the replica's lag is measured: requests read the last measurement, never measure it themselves. */
export const LAG_CHECK_INTERVAL_MS = 2_000;

export const FALLBACK_REASONS = ['lag', 'unreachable', 'not_a_standby'] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/** What the last lag check found, for /api/status and /metrics. */
export type ReplicaState = {
  readsFrom: 'replica' | 'primary';
  /** Null before the first check, and while the replica cannot say (unreachable, no standby). */
  lagSeconds: number | null;
  checkedAt: Date | null;
  fallbackReason: FallbackReason | null;
  /** Times reads moved to the primary, by reason, since the process started. */
  fallbacks: Record<FallbackReason, number>;
};

/**
 * Where lag-tolerant reads (reports, console pages, API lists) go. `pool` is the replica while its last check
 * found it within READ_MAX_LAG_SECONDS, else the primary; `primary` is the primary always. Without
 * DATABASE_READ_URL both are the primary and `replica` is null.
 */
export type Reads = {
  readonly pool: Pool;
  readonly primary: Pool;
  readonly replica: ReplicaState | null;
  /** Runs `work` with `pool` answering the primary: a session reading right after its own change. */
  onPrimary<T>(work: () => T): T;
  /** Whether the last check saw the replica replay up to a primary WAL position (replicaLag.ts). */
  hasReplayed(position: bigint): boolean;
  close(): Promise<void>;
};

/** Every read on the primary: no DATABASE_READ_URL, or a process (CLI, benchmark) that has no replica. */
export function readsFromPrimary(primary: Pool): Reads {
  return {
    pool: primary,
    primary,
    replica: null,
    onPrimary: (work) => work(),
    hasReplayed: () => true,
    close: async () => {},
  };
}

type ReadsOptions = {
  primary: Pool;
  replicaUrl: string;
  maxLagSeconds: number;
  log: Logger;
  checkIntervalMs?: number;
};

/** Reads from the replica at `replicaUrl`, whose lag is checked at once and then every `checkIntervalMs`. */
export function createReads(options: ReadsOptions): Reads {
  const { primary, log, maxLagSeconds } = options;
  const replicaPool = createPool(options.replicaUrl, log, 10, 'tally-reads', 'warn');
  // A connection of its own: a check that queued behind slow reports would time out and look like an outage.
  const checkPool = createPool(options.replicaUrl, log, 1, 'tally-replica-lag', 'warn');
  const onPrimaryScope = new AsyncLocalStorage<true>();
  const state: ReplicaState = {
    readsFrom: 'primary',
    lagSeconds: null,
    checkedAt: null,
    fallbackReason: null,
    fallbacks: { lag: 0, unreachable: 0, not_a_standby: 0 },
  };
  let replayedLsn: bigint | null = null;
  let firstCheck = true;
  const measureLag = createLagMeter();

  const check = async () => {
    let reason: FallbackReason | null = null;
    let problem: string | undefined;
    try {
      const primaryPosition = await readPrimaryWalPosition(primary);
      const replay = await readStandbyReplay(checkPool).catch((err: unknown) => {
        throw new ReplicaError(err);
      });
      replayedLsn = replay.replayedLsn;
      state.lagSeconds = replay.inRecovery ? measureLag(new Date(), primaryPosition, replay) : null;
      // A standby just started may not say its lag before a second check: reads wait on the primary, unsaid.
      const waitForSecondCheck = firstCheck && replay.inRecovery && state.lagSeconds === null;
      firstCheck = false;
      if (waitForSecondCheck) return;
      if (!replay.inRecovery) reason = 'not_a_standby';
      else if (state.lagSeconds === null || state.lagSeconds > maxLagSeconds) reason = 'lag';
    } catch (err) {
      // The primary down is no reason to leave the replica: every other part of Tally says it is down.
      if (!(err instanceof ReplicaError)) return;
      state.lagSeconds = null;
      reason = 'unreachable';
      problem = err.cause instanceof Error ? err.cause.message : String(err.cause);
    }
    state.checkedAt = new Date();
    moveReads(reason, problem);
  };

  // Logged and counted once per change, never per query.
  const moveReads = (reason: FallbackReason | null, problem?: string) => {
    const readsFrom = reason === null ? 'replica' : 'primary';
    const changed = readsFrom !== state.readsFrom || reason !== state.fallbackReason;
    state.readsFrom = readsFrom;
    state.fallbackReason = reason;
    if (!changed) return;
    const fields = { lagSeconds: state.lagSeconds, maxLagSeconds };
    if (reason === null) {
      log.info(fields, 'reads go to the read replica');
      return;
    }
    state.fallbacks[reason] += 1;
    log.warn(
      { ...fields, reason, problem },
      `reads go to the primary: the read replica is ${REASON_TEXT[reason]}`,
    );
  };

  // One check at a time: a slow one is not queued behind.
  let running: Promise<void> | null = null;
  const checkOnce = () => {
    running ??= check()
      .catch((err: unknown) => log.error(err, 'replica lag check failed'))
      .finally(() => {
        running = null;
      });
    return running;
  };
  void checkOnce();
  const timer = setInterval(checkOnce, options.checkIntervalMs ?? LAG_CHECK_INTERVAL_MS);
  timer.unref();
  // A replica lost between two checks would fail every read sent to it until the next check.
  const replicaReads = readAgainOnPrimary(replicaPool, primary, (err) => {
    state.lagSeconds = null;
    state.checkedAt = new Date();
    moveReads('unreachable', err.message);
  });

  return {
    get pool() {
      return state.readsFrom === 'replica' && !onPrimaryScope.getStore() ? replicaReads : primary;
    },
    primary,
    get replica() {
      return { ...state, fallbacks: { ...state.fallbacks } };
    },
    onPrimary: (work) => onPrimaryScope.run(true, work),
    hasReplayed: (position) => replayedLsn !== null && replayedLsn >= position,
    close: async () => {
      clearInterval(timer);
      await running;
      await Promise.all([replicaPool.end(), checkPool.end()]);
    },
  };
}

/** A replica's reads pool (readAgainOnPrimary) to the primary it reads again on, and who hears the loss. */
const fallbacks = new WeakMap<Pool, { primary: Pool; replicaFailed: (err: Error) => void }>();

/**
 * `replica` whose `query` and `connect` go to `primary` when the replica cannot answer (a lost connection, a
 * standby shutting down or refusing connections); `replicaFailed` hears each such failure first. A client
 * checked out before the loss fails its next statement: readWhole runs such a unit again, whole, on the primary.
 */
function readAgainOnPrimary(replica: Pool, primary: Pool, replicaFailed: (err: Error) => void): Pool {
  type Call = (...args: unknown[]) => Promise<unknown>;
  const orPrimary =
    (method: 'query' | 'connect') =>
    async (...args: unknown[]) => {
      try {
        return await (replica[method] as Call).apply(replica, args);
      } catch (err) {
        if (!isConnectionFailure(err)) throw err;
        replicaFailed(err);
        return (primary[method] as Call).apply(primary, args);
      }
    };
  const query = orPrimary('query');
  const connect = orPrimary('connect');
  const reads = new Proxy(replica, {
    get: (target, property) => {
      if (property === 'query') return query;
      if (property === 'connect') return connect;
      return Reflect.get(target, property, target);
    },
  });
  fallbacks.set(reads, { primary, replicaFailed });
  return reads;
}

/**
 * Runs `read` on `pool`. When `pool` is a replica's (Reads.pool) and the replica is lost before or during
 * `read`, runs `read` again, whole, on the primary: a unit of several statements (one snapshot, a report)
 * cannot move to another server half-way. `read` must only read, so running it twice changes nothing.
 */
export async function readWhole<T>(pool: Pool, read: (pool: Pool) => Promise<T>): Promise<T> {
  const fallback = fallbacks.get(pool);
  if (!fallback) return read(pool);
  try {
    return await read(pool);
  } catch (err) {
    if (!isConnectionFailure(err)) throw err;
    fallback.replicaFailed(err);
    return read(fallback.primary);
  }
}

// Connection exceptions (08), a server shutting down or starting (57P01–57P03), the socket's own errors, and
// pg's words for a connection that ended, broke or never came.
function isConnectionFailure(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  const { code } = err as { code?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || /^57P0[123]$/.test(code))) return true;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  return /Connection terminated|not queryable|timeout exceeded when trying to connect/.test(err.message);
}

const REASON_TEXT: Record<FallbackReason, string> = {
  lag: 'behind by more than READ_MAX_LAG_SECONDS',
  unreachable: 'unreachable',
  not_a_standby: 'not a standby (it follows no primary)',
};

class ReplicaError extends Error {
  constructor(cause: unknown) {
    super('read replica check failed', { cause });
  }
}
