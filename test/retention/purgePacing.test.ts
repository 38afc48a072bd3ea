import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { DAY_MS } from '../../src/domain/days.ts';
import { createLogger } from '../../src/logger.ts';
import { processNextEvents } from '../../src/projection/processStoredEvent.ts';
import { type PurgeBatch, purgeBodies } from '../../src/retention/purgeBodies.ts';
import {
  type PacingState,
  PURGE_PACING,
  paceAfterBatch,
  startPacing,
} from '../../src/retention/purgePacing.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';

// A budget no batch here reaches, so that each case shows the commit latency's part; the budget has its own.
// A quarter of a connection's time, so that each pause is three times its batch's busy time.
const pacing = {
  ...PURGE_PACING,
  minBatch: 50,
  startBatch: 200,
  maxBatch: 400,
  growBy: 50,
  batchBudgetMs: 10_000,
  share: 0.25,
  maxPauseMs: 5000,
};
const at = (state: Partial<PacingState>): PacingState => ({ ...startPacing(pacing), ...state });

describe('purge pacing decisions', () => {
  it.each([
    {
      name: 'the first batch sets the floor and is never congested; the batch grows by growBy',
      state: at({}),
      timing: { statementMs: 30, commitMs: 40 },
      next: { batchSize: 250, floorMs: 40, backoff: 1, pauseMs: 210, congested: false, overBudget: false },
    },
    {
      name: 'a commit within the floor plus the floor again is not congested',
      state: at({ recentCommitsMs: [10] }),
      timing: { statementMs: 10, commitMs: 20 },
      next: { batchSize: 250, floorMs: 10, backoff: 1, pauseMs: 90, congested: false, overBudget: false },
    },
    {
      name: 'a commit slower than twice the floor halves the batch and doubles the pause',
      state: at({ recentCommitsMs: [10] }),
      timing: { statementMs: 10, commitMs: 20.5 },
      next: { batchSize: 100, floorMs: 10, backoff: 2, pauseMs: 183, congested: true, overBudget: false },
    },
    {
      name: 'under a fast floor, commits may queue queueSlackMs above it before it counts',
      state: at({ recentCommitsMs: [1] }),
      timing: { statementMs: 4, commitMs: 6 },
      next: { batchSize: 250, floorMs: 1, backoff: 1, pauseMs: 30, congested: false, overBudget: false },
    },
    {
      name: 'past the slack under a fast floor, congested',
      state: at({ recentCommitsMs: [1] }),
      timing: { statementMs: 4, commitMs: 6.5 },
      next: { batchSize: 100, floorMs: 1, backoff: 2, pauseMs: 63, congested: true, overBudget: false },
    },
    {
      name: 'the batch never shrinks below minBatch nor the backoff past maxBackoff',
      state: at({ recentCommitsMs: [2], batchSize: 60, backoff: 16 }),
      timing: { statementMs: 50, commitMs: 50 },
      next: { batchSize: 50, floorMs: 2, backoff: 16, pauseMs: 4800, congested: true, overBudget: false },
    },
    {
      name: 'the batch never grows past maxBatch; the backoff halves back to 1',
      state: at({ recentCommitsMs: [2], batchSize: 380, backoff: 2 }),
      timing: { statementMs: 2, commitMs: 2 },
      next: { batchSize: 400, floorMs: 2, backoff: 1, pauseMs: 12, congested: false, overBudget: false },
    },
    {
      name: 'the pause never passes maxPauseMs',
      state: at({ recentCommitsMs: [2], backoff: 8 }),
      timing: { statementMs: 500, commitMs: 500 },
      next: { batchSize: 100, floorMs: 2, backoff: 16, pauseMs: 5000, congested: true, overBudget: false },
    },
  ])('$name', ({ state, timing, next }) => {
    const { recentCommitsMs, ...step } = paceAfterBatch(pacing, state, timing);
    expect({ ...step, pauseMs: Math.round(step.pauseMs) }).toEqual(next);
    expect(recentCommitsMs).toEqual([...state.recentCommitsMs, timing.commitMs]);
  });

  it('a batch busy longer than its budget halves the next one without lengthening the pause beyond its share', () => {
    const budgeted = { ...pacing, batchBudgetMs: 10 };
    const { recentCommitsMs: _, ...over } = paceAfterBatch(budgeted, at({ recentCommitsMs: [2] }), {
      statementMs: 8,
      commitMs: 2.5,
    });
    expect({ ...over, pauseMs: Math.round(over.pauseMs) }).toEqual({
      batchSize: 100,
      floorMs: 2,
      backoff: 1,
      pauseMs: 32,
      congested: false,
      overBudget: true,
    });
    const within = paceAfterBatch(budgeted, at({ recentCommitsMs: [2] }), { statementMs: 8, commitMs: 2 });
    expect([within.batchSize, within.overBudget]).toEqual([250, false]);
  });

  it('the floor is the fastest of the last floorWindow commits, so a lasting slower level becomes the floor', () => {
    const windowed = { ...pacing, floorWindow: 3 };
    let state = at({});
    const floors: number[] = [];
    const congested: boolean[] = [];
    for (const commitMs of [1, 30, 30, 30, 30]) {
      const step = paceAfterBatch(windowed, state, { statementMs: 1, commitMs });
      floors.push(step.floorMs);
      congested.push(step.congested);
      state = step;
    }
    expect({ floors, congested }).toEqual({
      floors: [1, 1, 1, 30, 30],
      congested: [false, true, true, false, false],
    });
  });

  it('the pause keeps the purge to its share of the time when nothing is congested', () => {
    const step = paceAfterBatch(pacing, at({ recentCommitsMs: [5] }), { statementMs: 15, commitMs: 5 });
    expect(20 / (20 + step.pauseMs)).toBeCloseTo(pacing.share, 10);
  });
});

// Commits are made slow on the purge's own connection, as a disk busy with others' commits would: a deferred
// trigger waits 100 ms once per transaction at commit while the session's `tally_test.slow_commit` is on.
// (`commit_delay` is not used: it is skipped when another database's flush already covered the commit.)
describe('purge pacing against Postgres', () => {
  let t: TestApp;
  const deliveries = 60;

  beforeAll(async () => {
    // No projection loop: a delivery made to wait again stays waiting.
    t = await startTestApp();
    await deliver(
      t.app,
      Array.from({ length: deliveries }, () => JSON.stringify(paymentEvent())),
    );
    while ((await processNextEvents(t, 100)).claimed > 0);
    await t.pool.query(`update events set received_at = received_at - interval '40 days'`);
    await t.pool.query(
      `create function slow_commit() returns trigger language plpgsql as $$
       begin
         if current_setting('tally_test.slow_commit', true) = 'on'
            and current_setting('tally_test.slept', true) is distinct from 'yes' then
           perform set_config('tally_test.slept', 'yes', true);
           perform pg_sleep(0.1);
         end if;
         return null;
       end $$;
       create constraint trigger slow_commit after update on events
         deferrable initially deferred for each row execute function slow_commit()`,
    );
    // Two deliveries stay out of reach: one recent, one whose processing is not over.
    await t.pool.query(
      `update events set received_at = now() where id = (select max(id) from events);
       update events set status = 'received' where id = (select min(id) from events)`,
    );
  });
  afterAll(() => t.close());

  it('slow commits shrink the batches and lengthen the pauses, fast ones grow them back; every eligible body is purged once', async () => {
    const purgePool = createPool(t.databaseUrl, createLogger('warn'), 1, 'tally-purge-test');
    const batches: PurgeBatch[] = [];
    const slowFrom = 3;
    const fastFrom = 6;
    const setSlowCommits = (on: boolean) =>
      void purgePool.query(`set tally_test.slow_commit = ${on ? 'on' : 'off'}`);
    try {
      const done = await purgeBodies(purgePool, {
        cutoff: new Date(Date.now() - 30 * DAY_MS),
        now: () => new Date(),
        // A budget the slowed batches stay under: the commit latency alone must slow the purge down.
        pacing: { minBatch: 1, startBatch: 4, maxBatch: 64, growBy: 2, share: 0.5, batchBudgetMs: 1000 },
        // The pool has one connection and queues in order: the setting lands before the next batch.
        onBatch: (_done, batch) => {
          batches.push(batch);
          if (batches.length === slowFrom) setSlowCommits(true);
          if (batches.length === fastFrom) setSlowCommits(false);
        },
      });
      expect(done).toEqual({ events: deliveries - 2, conflicts: 0 });
    } finally {
      await purgePool.end();
    }
    // The first conflicts batch finds nothing; then the events' batches.
    const events = batches.slice(1);
    const slow = events.slice(slowFrom - 1, fastFrom - 1);
    // Each slow commit halves the batch and doubles the pause's multiplier (the pause is at least the
    // 100 ms commit times that multiplier, with share 0.5).
    expect(
      slow.map((batch, index) => ({
        slowCommit: batch.timing.commitMs >= 100,
        congested: batch.next.congested,
        halved: batch.next.batchSize === Math.max(1, Math.floor(batch.limit / 2)),
        backedOff: batch.next.pauseMs >= 100 * 2 ** (index + 1),
      })),
    ).toEqual(Array(3).fill({ slowCommit: true, congested: true, halved: true, backedOff: true }));
    // Back to fast commits the batches grow again (AIMD: one batch at a time).
    const after = events.slice(fastFrom - 1);
    expect(after.some((batch) => !batch.next.congested && batch.next.batchSize > batch.limit)).toBe(true);

    const { rows } = await t.pool.query<{ purged: boolean; eligible: boolean; n: number }>(
      `select body_purged_at is not null as purged,
              status = 'processed' and received_at < now() - interval '30 days' as eligible, count(*)::int as n
         from events group by 1, 2 order by 1, 2`,
    );
    expect(rows).toEqual([
      { purged: false, eligible: false, n: 2 },
      { purged: true, eligible: true, n: deliveries - 2 },
    ]);
  });
});
