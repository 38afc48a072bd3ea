import type { Boss } from './boss.ts';
import { queueNames } from './queues.ts';

export type JobCounts = Record<string, { queued: number; failed: number }>;

/**
 * Per queue, jobs waiting (created or retrying) and jobs failed for good (retries exhausted, or failed by
 * pg-boss's supervisor), as pg-boss last counted them: its monitor recounts on each supervise pass
 * (src/queue/boss.ts). Failed jobs are kept until its retention deletes them (7 days): a rolling count.
 */
export async function countJobsByQueue(boss: Boss): Promise<JobCounts> {
  const stats = await Promise.all(queueNames.map((name) => boss.getQueueStats(name)));
  return Object.fromEntries(
    queueNames.map((name, index) => [
      name,
      { queued: stats[index]?.[0]?.queuedCount ?? 0, failed: stats[index]?.[0]?.failedCount ?? 0 },
    ]),
  );
}
