import { vi } from 'vitest';

/** Thrown by a check that should be polled again: its message says what is still missing. */
export class StillWaiting extends Error {}

/**
 * Polls `check` every `intervalMs` until it returns without throwing `StillWaiting`, and answers its value.
 * Past `timeoutMs` the test fails with `waited N ms for <what>: <the last StillWaiting message>`, so a wait
 * never ends silently. Any other error fails at once. Built on `vi.waitFor`.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T> | T,
  { timeoutMs = 20_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  let failure: unknown = null;
  try {
    return await vi
      .waitFor(
        async () => {
          try {
            return await check();
          } catch (err) {
            if (err instanceof StillWaiting) throw err;
            // vi.waitFor retries any error; one that is not a wait ends the polling at once.
            failure = err;
            return undefined as T;
          }
        },
        { timeout: timeoutMs, interval: intervalMs },
      )
      .then((value) => {
        if (failure !== null) throw failure;
        return value;
      });
  } catch (err) {
    if (err instanceof StillWaiting) throw new Error(`waited ${timeoutMs} ms for ${what}: ${err.message}`);
    throw err;
  }
}

/** Throws StillWaiting (with `detail`) unless `done`: the usual last line of a check. */
export function until(done: boolean, detail: string): void {
  if (!done) throw new StillWaiting(detail);
}
