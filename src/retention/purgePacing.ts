/**
 * How fast the retention purge goes, decided after each batch from what that batch measured: no I/O here.
 *
 * The purge shares Postgres with live ingest, whose acknowledgements wait on their own commits. A commit
 * waits for the WAL flushes queued before it, so a purge batch's commit delays every webhook commit behind
 * it, and the time its statement runs is CPU and I/O that ingest does not get. The pacing is a scavenger
 * in the manner of LEDBAT (a transport that yields to other traffic by watching its own queueing delay):
 *
 * - The **floor** is the fastest of the last `floorWindow` commits: what a commit costs when nothing queues
 *   before it. A window rather than the whole run (LEDBAT keeps its base delay over minutes, for the same
 *   reason): when the database stays busier for good, the floor rises to it and the purge goes on at its
 *   share instead of backing off for as long as the load lasts.
 * - A batch is **congested** when its commit took more than the floor plus `max(floor, queueSlackMs)`:
 *   someone else's commits (or the purge's own last batch) made it wait about as long again as a commit
 *   costs. A bigger batch also writes more WAL for its commit to flush, so this bounds the batch size too.
 * - A batch is **over budget** when it kept the database busy (statement and commit) longer than
 *   `batchBudgetMs`: a webhook that arrives meanwhile shares the CPU and the disk with it for that long, so
 *   the budget is below an acknowledgement's own p99 on a quiet database (4 to 6 ms on the benchmark machine).
 * - The batch size follows AIMD (as TCP's window does): `+ growBy` rows after a batch that was neither,
 *   halved after one that was either, between `minBatch` and `maxBatch`.
 * - The pause keeps the purge's share of one connection's time at `share`: it waits `(1 − share) / share`
 *   times as long as the batch was busy (statement and commit). After a congested batch that multiplier
 *   doubles (up to `maxBackoff`) and it halves back after each batch that was not, never above `maxPauseMs`.
 *
 * So an idle database purges quickly in large batches, and a busy one slows the purge down within a batch or
 * two, without anyone choosing a rate for a disk they have not measured. `bench:purge` and `bench:year`
 * measure the webhook p99 during a purge against the same load without one (docs/performance.md).
 */
export type PurgePacing = {
  minBatch: number;
  startBatch: number;
  maxBatch: number;
  growBy: number;
  /** The share of one connection's time the purge keeps busy when nothing is congested, in (0, 1]. */
  share: number;
  /** Commits may wait this long above the floor before a batch counts as congested, however fast the floor. */
  queueSlackMs: number;
  floorWindow: number;
  batchBudgetMs: number;
  maxBackoff: number;
  maxPauseMs: number;
};

export const PURGE_PACING: PurgePacing = {
  minBatch: 20,
  startBatch: 100,
  maxBatch: 2000,
  growBy: 50,
  share: 0.2,
  queueSlackMs: 5,
  floorWindow: 100,
  batchBudgetMs: 4,
  maxBackoff: 16,
  maxPauseMs: 1000,
};

/** What one batch took, in milliseconds: its statement, and its commit (the round trip of `commit`). */
export type BatchTiming = { statementMs: number; commitMs: number };

export type PacingState = { batchSize: number; recentCommitsMs: number[]; backoff: number };

/** What to do next: the next batch's size and how long to wait first, and what the last batch was. */
export type PacingStep = PacingState & {
  floorMs: number;
  pauseMs: number;
  congested: boolean;
  overBudget: boolean;
};

export function startPacing(pacing: PurgePacing): PacingState {
  return { batchSize: pacing.startBatch, recentCommitsMs: [], backoff: 1 };
}

/** The pacing after a batch that took `timing`, from the state the batch ran with. */
export function paceAfterBatch(pacing: PurgePacing, state: PacingState, timing: BatchTiming): PacingStep {
  const recentCommitsMs = [...state.recentCommitsMs, timing.commitMs].slice(-pacing.floorWindow);
  const floorMs = Math.min(...recentCommitsMs);
  const congested = timing.commitMs > floorMs + Math.max(floorMs, pacing.queueSlackMs);
  const busyMs = timing.statementMs + timing.commitMs;
  const overBudget = busyMs > pacing.batchBudgetMs;
  const batchSize =
    congested || overBudget
      ? Math.max(pacing.minBatch, Math.floor(state.batchSize / 2))
      : Math.min(pacing.maxBatch, state.batchSize + pacing.growBy);
  const backoff = congested ? Math.min(pacing.maxBackoff, state.backoff * 2) : Math.max(1, state.backoff / 2);
  const pauseMs = Math.min(pacing.maxPauseMs, ((busyMs * (1 - pacing.share)) / pacing.share) * backoff);
  return { batchSize, floorMs, recentCommitsMs, backoff, pauseMs, congested, overBudget };
}
