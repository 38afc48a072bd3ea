/** Runs `work`, prints how long it took on stderr, and returns its result with the seconds. */
export async function timed<T>(label: string, work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`${label}: ${seconds.toFixed(2)} s\n`);
  return [result, seconds];
}

/**
 * Samples the process's RSS every 20 ms: `peak()` since start or the last `reset()`, in bytes. The timer cannot
 * fire during synchronous work (rendering a file): `sample()` after it, and `peak()` itself, read it then.
 */
export function sampleRss() {
  let peak = process.memoryUsage().rss;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  const sampler = setInterval(sample, 20);
  return {
    sample,
    peak: () => {
      sample();
      return peak;
    },
    reset: () => {
      peak = process.memoryUsage().rss;
    },
    stop: () => clearInterval(sampler),
  };
}

/**
 * Ends a pool so that Postgres can be stopped right after: pg's pool.end() resolves before its clients'
 * sockets have closed, and a socket Postgres then terminates raises an error nobody listens to any more.
 */
export async function endPool(pool: { end: () => Promise<void> }): Promise<void> {
  await pool.end();
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

/**
 * Waits until no stored delivery is waiting to be projected, looking every `everyMs`: an indexed probe, as a
 * count of the whole table this often costs the database a fifth of a core.
 */
export async function untilProjected(
  db: { query: (text: string) => Promise<{ rows: { waiting: boolean }[] }> },
  everyMs = 50,
) {
  while (
    (await db.query(`select exists (select from events where status = 'received') as waiting`)).rows[0]
      ?.waiting
  )
    await new Promise((resolve) => setTimeout(resolve, everyMs));
}

/** The bench's one optional argument, a positive whole number; anything else stops the bench, naming it. */
export function countArgument(name: string, fallback: number): number {
  return positiveWholeNumber(name, process.argv[2], fallback);
}

/** How many interleaved rounds to run: BENCH_ROUNDS, a positive whole number, checked as countArgument is. */
export function roundsSetting(fallback: number): number {
  return positiveWholeNumber('BENCH_ROUNDS', process.env.BENCH_ROUNDS, fallback);
}

function positiveWholeNumber(name: string, given: string | undefined, fallback: number): number {
  if (given === undefined) return fallback;
  const value = Number(given);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`${name} must be a positive whole number, not ${JSON.stringify(given)}\n`);
    process.exit(2);
  }
  return value;
}
