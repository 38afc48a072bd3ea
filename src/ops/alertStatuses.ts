/** Where an alert stands: waiting, delivered or failed, logged without a destination, or handled by a digest. */
export const ALERT_STATUSES = ['pending', 'sent', 'failed', 'logged', 'digested', 'dropped'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Nothing left to deliver: sent, logged, or taken into (or left out of) a digest. */
export const SETTLED_ALERT_STATUSES: ReadonlySet<string> = new Set<AlertStatus>([
  'sent',
  'logged',
  'digested',
  'dropped',
]);
