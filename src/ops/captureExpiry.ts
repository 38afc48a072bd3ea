import type { FindingDraft } from '../findings/findings.ts';

export const CAPTURE_WINDOW_MS = 7 * 24 * 3600 * 1000;

export type Authorization = {
  paymentId: string;
  accountId: string;
  amount: number;
  currency: string;
  authorizedAt: Date;
};

export type CaptureAlert = {
  dedupeKey: string;
  kind: 'capture_expiring' | 'capture_expired';
  paymentId: string;
  accountId: string;
  /** Hours before expiry of the threshold crossed; 0 once expired. */
  thresholdHours: number;
  payload: Record<string, unknown>;
};

/**
 * For each uncaptured manual authorization: `capture_expiring` once it is within a threshold of its 7-day
 * expiry (naming the most urgent threshold crossed), `capture_expired` once past it. Each crossing yields
 * one alert, keyed so it is sent once whoever sees it first.
 */
export function checkCaptureExpiry(authorizations: Authorization[], thresholdsHours: number[], now: Date) {
  const findings: FindingDraft[] = [];
  const alerts: CaptureAlert[] = [];
  const thresholds = [...thresholdsHours].sort((a, b) => a - b);
  for (const authorization of authorizations) {
    const expiresAt = new Date(authorization.authorizedAt.getTime() + CAPTURE_WINDOW_MS);
    const msLeft = expiresAt.getTime() - now.getTime();
    const hoursLeft = Math.round((msLeft / 3_600_000) * 100) / 100;
    const facts = {
      payment_id: authorization.paymentId,
      account_id: authorization.accountId,
      amount: authorization.amount,
      currency: authorization.currency,
      authorized_at: authorization.authorizedAt.toISOString(),
      expires_at: expiresAt.toISOString(),
      hours_left: Math.max(0, hoursLeft),
    };
    const expired = msLeft <= 0;
    const crossed = expired ? 0 : thresholds.find((hours) => msLeft <= hours * 3_600_000);
    if (crossed === undefined) continue;
    const code = expired ? 'capture_expired' : 'capture_expiring';
    findings.push({
      code,
      severity: expired ? 'error' : 'warning',
      subjectType: 'payment',
      subjectId: authorization.paymentId,
      expected: expiresAt.toISOString(),
      actual: null,
      atStake: authorization.amount,
      details: { ...facts, threshold_hours: crossed },
      accountId: authorization.accountId,
      currency: authorization.currency,
    });
    alerts.push({
      dedupeKey: `capture:${authorization.paymentId}:${crossed}`,
      kind: code,
      paymentId: authorization.paymentId,
      accountId: authorization.accountId,
      thresholdHours: crossed,
      payload: { ...facts, threshold_hours: crossed },
    });
  }
  return { findings, alerts };
}
