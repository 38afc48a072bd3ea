// What the retention purge's pacing did in a bench run (bench:purge, bench:year): its batches' sizes, how
// many commits it found congested, and how long it paused in all.
import type { PurgeBatch } from '../src/retention/purgeBodies.ts';

/** Records each batch of a purge (pass `record` as its `onBatch`'s second argument) and describes them. */
export function purgePacingStats() {
  const batches: PurgeBatch[] = [];
  return {
    record: (batch: PurgeBatch) => batches.push(batch),
    describe: () => {
      const sizes = batches.map((batch) => batch.limit).sort((a, b) => a - b);
      const median = sizes[Math.floor(sizes.length / 2)] ?? 0;
      const commits = batches.map((batch) => batch.timing.commitMs).sort((a, b) => a - b);
      const pausedSeconds = batches.reduce((sum, batch) => sum + batch.next.pauseMs, 0) / 1000;
      const congested = batches.filter((batch) => batch.next.congested).length;
      const overBudget = batches.filter((batch) => batch.next.overBudget).length;
      const busy = batches
        .map((batch) => batch.timing.statementMs + batch.timing.commitMs)
        .sort((a, b) => a - b);
      return (
        `${batches.length} batches of ${sizes[0] ?? 0} to ${sizes.at(-1) ?? 0} rows (median ${median}), ` +
        `${congested} with a congested commit (commit p50 ${(commits[Math.floor(commits.length / 2)] ?? 0).toFixed(1)} ms, ` +
        `fastest ${(commits[0] ?? 0).toFixed(1)} ms), ${overBudget} over budget (busy p50 ` +
        `${(busy[Math.floor(busy.length / 2)] ?? 0).toFixed(1)} ms, p99 ${(busy[Math.floor(busy.length * 0.99)] ?? 0).toFixed(1)} ms), ` +
        `${pausedSeconds.toFixed(1)} s of pauses`
      );
    },
  };
}
