export type Severity = 'info' | 'warning' | 'error';

/** A finding as a reconciliation rule reports it, before the store gives it an id and a lifecycle. */
export type FindingDraft = {
  code: string;
  severity: Severity;
  subjectType: string;
  subjectId: string;
  expected: unknown;
  actual: unknown;
  details: Record<string, unknown>;
  /** Set when findings of one run belong to different accounts (else the run's account is used). */
  accountId?: string;
  currency?: string;
};
