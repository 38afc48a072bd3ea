import { ZodError } from 'zod';
import { findEventToProcess } from '../db/findEventToProcess.ts';
import { markEventFailed } from '../db/markEventFailed.ts';
import { markEventProcessed } from '../db/markEventProcessed.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { redactCardNumbersInText } from '../domain/cardNumbers.ts';
import type { EventFamily } from '../domain/eventFamilies.ts';
import { projectEvent } from './projectEvent.ts';

export type ProcessOutcome = EventFamily | 'skipped';

/**
 * Projects one stored delivery and marks it processed, in one transaction. A delivery that cannot be
 * projected is marked failed with the reason (then the error is rethrown, so the job is retried).
 */
export async function processStoredEvent(pool: Pool, id: number): Promise<ProcessOutcome> {
  const event = await findEventToProcess(pool, id);
  if (!event || event.status === 'processed' || event.status === 'quarantined') return 'skipped';
  try {
    return await withTransaction(pool, async (client) => {
      const family = await projectEvent(client, {
        rowId: event.id,
        eventName: event.event_name,
        accountId: event.account_id,
        accountType: event.account_type,
        receivedAt: event.received_at,
        data: event.body.data,
      });
      await markEventProcessed(client, event.id);
      return family;
    });
  } catch (err) {
    await markEventFailed(pool, event.id, describe(err));
    throw err;
  }
}

// Schema problems name the field, never its value; anything else is passed through the card redactor.
function describe(err: unknown): string {
  if (err instanceof ZodError) {
    return `invalid data: ${err.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`)
      .join('; ')}`;
  }
  return redactCardNumbersInText(err instanceof Error ? err.message : String(err));
}
