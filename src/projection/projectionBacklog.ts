/**
 * Whether this process's projection has deliveries waiting beyond the batches it is projecting: its last batch
 * came back full. The worker's forwarding reads it to give the projection the CPU first (decision 0019).
 */
export type ProjectionBacklog = {
  /** Called by each processing loop after each batch: how many it claimed of how many it asked for. */
  noteBatch(claimed: number, asked: number): void;
  waiting(): boolean;
};

// A loop that stops noting (its batch hangs, the process stops) no longer counts as a backlog after this.
const FULL_BATCH_COUNTS_FOR_MS = 10_000;

export function createProjectionBacklog(now: () => number = Date.now): ProjectionBacklog {
  let lastFullAt = Number.NEGATIVE_INFINITY;
  let lastShortAt = Number.NEGATIVE_INFINITY;
  return {
    noteBatch(claimed, asked) {
      if (claimed >= asked) lastFullAt = now();
      else lastShortAt = now();
    },
    waiting: () => lastFullAt > lastShortAt && now() - lastFullAt < FULL_BATCH_COUNTS_FOR_MS,
  };
}
