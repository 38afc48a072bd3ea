import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROCESSING_DEFAULTS, startEventProcessing } from '../../src/projection/processingLoop.ts';
import { createProjectionBacklog } from '../../src/projection/projectionBacklog.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

// What the worker's forwarding gives way to (test/subscriptions/givingWay.test.ts).
let t: TestApp;
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});
afterAll(() => t.close());

describe('the projection backlog', () => {
  it('is a backlog while the last batch came back full, for at most 10 s without another batch', () => {
    let now = 1_000;
    const backlog = createProjectionBacklog(() => now);
    expect(backlog.waiting()).toBe(false);
    backlog.noteBatch(500, 500);
    expect(backlog.waiting()).toBe(true);
    now += 9_999;
    expect(backlog.waiting()).toBe(true);
    now += 1;
    expect(backlog.waiting()).toBe(false);
    backlog.noteBatch(500, 500);
    now += 1;
    backlog.noteBatch(12, 500);
    expect(backlog.waiting()).toBe(false);
  });

  it('is told each batch by the processing loop: full ones while deliveries wait, then a short one', async () => {
    await deliver(
      t.app,
      Array.from({ length: 12 }, (_, n) =>
        JSON.stringify(
          paymentEvent({
            data: { id: `py_backlog_${n}`, amount: 100, currency: 'usd', status: 'succeeded' },
          }),
        ),
      ),
    );
    const batches: number[] = [];
    const backlog = createProjectionBacklog();
    const stop = startEventProcessing(
      {
        pool: t.pool,
        boss: t.boss,
        log: t.log,
        backlog: {
          noteBatch: (claimed, asked) => {
            batches.push(claimed);
            backlog.noteBatch(claimed, asked);
          },
          waiting: backlog.waiting,
        },
      },
      { ...PROCESSING_DEFAULTS, batchSize: 5, concurrency: 1 },
    );
    stops.push(stop);
    await waitFor('the deliveries projected and a short batch', () =>
      until(
        batches.some((claimed) => claimed < 5) && batches.reduce((a, b) => a + b, 0) === 12,
        `${batches}`,
      ),
    );
    expect(batches.slice(0, 3)).toEqual([5, 5, 2]);
    expect(backlog.waiting()).toBe(false);
  });
});
