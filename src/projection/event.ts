/** A stored delivery as the projections read it. */
export type EventToProject = {
  rowId: number;
  eventName: string;
  accountId: string;
  accountType: string;
  receivedAt: Date;
  data: Record<string, unknown>;
};
