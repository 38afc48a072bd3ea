import type { PoolClient } from '../db/pool.ts';

// The attempts of a projection inside the batch's transaction (processStoredEvent.ts): each under a savepoint,
// within a time budget, and made again when Postgres chose it to give way to another transaction.

/** A projection that went over its budget: the delivery is failed for good, never retried automatically. */
export class OverBudgetError extends Error {}

// A deadlock or a serialization failure is Postgres making this batch give way to another transaction, not a
// fault of its deliveries: the attempt is made again at once, up to this many times in all.
const ATTEMPTS_ON_CONFLICT = 3;
const CONFLICT_CODES = new Set(['40P01', '40001']);
export const isConflict = (err: unknown) =>
  err instanceof Error && 'code' in err && CONFLICT_CODES.has(String(err.code));

/**
 * Runs a projection under a savepoint, rolled back if it throws or takes longer than `budgetMs`, and again
 * when it lost to another transaction (ATTEMPTS_ON_CONFLICT). Returns null on success, else why it did not
 * count.
 */
export async function projectUnderSavepoint(
  client: PoolClient,
  budgetMs: number,
  project: () => Promise<void>,
): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    const failure = await attemptUnderSavepoint(client, budgetMs, project);
    if (failure === null || !isConflict(failure) || attempt === ATTEMPTS_ON_CONFLICT) return failure;
  }
}

async function attemptUnderSavepoint(
  client: PoolClient,
  budgetMs: number,
  project: () => Promise<void>,
): Promise<unknown> {
  await client.query('savepoint projection');
  const started = performance.now();
  let failure: unknown = null;
  try {
    await project();
    const seconds = (performance.now() - started) / 1000;
    if (seconds * 1000 > budgetMs)
      failure = new OverBudgetError(
        `took ${seconds.toFixed(1)} s to process, over the budget of ${budgetMs / 1000} s; not retried automatically (tally reprocess --failed)`,
      );
  } catch (err) {
    failure = err;
  }
  if (failure !== null) await client.query('rollback to savepoint projection');
  return failure;
}
