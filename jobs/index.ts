import type { JobDefinition } from '../src/queue/job.ts';
import processEvent from './process-event.ts';

/** Every pg-boss queue Tally runs. */
export const jobs: readonly JobDefinition[] = [processEvent as JobDefinition];
