import type { Logger } from '../logger.ts';
import type { ProjectionBacklog } from '../projection/projectionBacklog.ts';

/**
 * How long forwarding waits at a stretch while the projection has a backlog, and how long it then runs
 * whatever the backlog. At most 5 s of every 35 s sits beside a projection running flat out: with forwarding
 * costing it at most a third meanwhile, the projection keeps above 0.9 of its speed however long the backlog
 * lasts, and forwarding, slowed, never stops.
 */
export type GiveWayTimes = { waitAtMostMs: number; thenRunMs: number };
export const GIVE_WAY_TIMES: GiveWayTimes = { waitAtMostMs: 30_000, thenRunMs: 5_000 };

// How often a waiting loop looks at the backlog again: the forwarding lag just after a backlog is projected.
const LOOK_EVERY_MS = 100;

/**
 * What each forwarding loop awaits before a round (decision 0019): at once when this process's projection has
 * no backlog (or none is known); otherwise once the backlog is gone, or the stretch has lasted
 * `waitAtMostMs`, after which rounds go on for `thenRunMs` before forwarding gives way again. Tally's own
 * record of the money first, its forwarding after: a burst is projected at full speed, and sent once it is.
 */
export function givingWay(
  backlog: ProjectionBacklog | undefined,
  times: GiveWayTimes,
  wait: (ms: number) => Promise<unknown>,
  stopping: AbortSignal,
  log: Logger,
): () => Promise<void> {
  let waitingSince: number | null = null;
  let runUntil = 0;
  const stretchEnds = (now: number, reason: string) => {
    if (waitingSince === null) return;
    log.info(
      { waitedSeconds: (now - waitingSince) / 1000 },
      `forward-changes: forwarding resumes: ${reason}`,
    );
    waitingSince = null;
  };
  return async () => {
    while (!stopping.aborted && backlog?.waiting()) {
      const now = Date.now();
      if (now < runUntil) return;
      if (waitingSince === null) {
        waitingSince = now;
        log.info(
          { waitAtMostSeconds: times.waitAtMostMs / 1000 },
          'forward-changes: the projection has a backlog; forwarding gives way to it',
        );
      }
      if (now - waitingSince >= times.waitAtMostMs) {
        stretchEnds(now, 'it gave way for as long as it may at a stretch');
        runUntil = now + times.thenRunMs;
        return;
      }
      await wait(LOOK_EVERY_MS);
    }
    stretchEnds(Date.now(), stopping.aborted ? 'the worker is stopping' : 'the projection has no backlog');
  };
}
