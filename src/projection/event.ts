/** A stored delivery as the projections read it. */
export type EventToProject = {
  rowId: number;
  eventName: string;
  accountId: string;
  accountType: string;
  receivedAt: Date;
  /** `api`: a snapshot the sweep or backfill fetched; it does not count as delivered. */
  source: 'webhook' | 'api';
  data: Record<string, unknown>;
};
