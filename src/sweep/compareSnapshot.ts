import { createHash } from 'node:crypto';
import type { FindingDraft } from '../findings/findings.ts';
import type { ApiSnapshot, ProjectedState, SweptResource } from './queries.ts';

export type ApiObject = {
  /** The object as the API returned it, kept verbatim in the raw log. */
  raw: unknown;
  id: string | null;
  createdAt: Date | null;
  updatedAt: Date | null;
};

const time = (value: unknown) => {
  if (typeof value !== 'string') return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : new Date(parsed);
};

/** The few fields the sweep compares by; the worker validates the rest like any delivery. */
export function readApiObject(raw: unknown): ApiObject {
  const object = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const createdAt = time(object.created_at);
  return {
    raw,
    id: typeof object.id === 'string' && object.id !== '' ? object.id : null,
    createdAt,
    updatedAt: time(object.updated_at) ?? createdAt,
  };
}

export type SweepOutcome = 'new' | 'newer' | 'unchanged';

/** `new`: Tally never projected it; `newer`: the API's state is newer than the newest Tally projected. */
export function outcomeOf(object: ApiObject, projected: ProjectedState | undefined): SweepOutcome {
  if (!projected || object.id === null) return 'new';
  if (object.updatedAt !== null && object.updatedAt > projected.updatedAt) return 'newer';
  return 'unchanged';
}

/**
 * A missed payment puts its amount at stake, as the API shows it; a forwarding request moves no money of
 * the merchant's. Null when the API object carries no whole-cent amount.
 */
function missedPaymentAmount(raw: unknown): { amount: number; currency: string | null } | null {
  const object = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  if (!Number.isSafeInteger(object.amount)) return null;
  const currency = typeof object.currency === 'string' && object.currency !== '' ? object.currency : null;
  return { amount: Math.abs(object.amount as number), currency };
}

const SUBJECT_TYPE = { payments: 'payment', forwarding_requests: 'forwarding_request' } as const;

/**
 * `event_missed` when the API shows a state older than the grace period that no webhook delivery brought:
 * the object itself (nothing was ever delivered) or a newer state of it. Null otherwise.
 */
export function missedFinding(
  resource: SweptResource,
  object: ApiObject,
  projected: ProjectedState | undefined,
  context: { accountId: string; graceEnd: Date },
): FindingDraft | null {
  if (object.id === null || object.updatedAt === null || object.updatedAt > context.graceEnd) return null;
  const delivered = projected?.deliveredUpdatedAt ?? null;
  if (delivered !== null && delivered >= object.updatedAt) return null;
  const payment = resource === 'payments' ? missedPaymentAmount(object.raw) : null;
  return {
    code: 'event_missed',
    severity: 'error',
    subjectType: SUBJECT_TYPE[resource],
    subjectId: object.id,
    accountId: context.accountId,
    ...(payment?.currency ? { currency: payment.currency } : {}),
    expected: object.updatedAt.toISOString(),
    actual: delivered?.toISOString() ?? null,
    atStake: payment?.amount ?? null,
    details: {
      missing: delivered === null ? 'object' : 'newer_state',
      api_updated_at: object.updatedAt.toISOString(),
      delivered_updated_at: delivered?.toISOString() ?? null,
      account_id: context.accountId,
    },
  };
}

const EVENT_NAME = {
  payments: 'payment.api_snapshot',
  forwarding_requests: 'forwarding_request.api_snapshot',
  // The payout sync's: payouts, their lines, and a payout's line count once every page is stored.
  payouts: 'payout.api_snapshot',
  balance_transactions: 'balance_transaction.api_snapshot',
  payout_line_counts: 'payout.lines_counted',
};

/** What an API snapshot holds, which names its raw-log event. */
export type SnapshotResource = keyof typeof EVENT_NAME;

/**
 * The raw-log row of an API object: an envelope like a delivery's, whose id is the object's id and
 * `updated_at`, so the same state fetched twice is stored once.
 */
export function snapshotOf(
  resource: SnapshotResource,
  object: ApiObject,
  context: { accountId: string; accountType: string; fetchedAt: Date },
): ApiSnapshot {
  const data = JSON.stringify(object.raw);
  // A payment says whether it is a test one; otherwise the account's deliveries said (or `live`).
  const isTest = (object.raw as { is_test?: unknown } | null)?.is_test;
  const accountType = typeof isTest === 'boolean' ? (isTest ? 'test' : 'live') : context.accountType;
  const state = object.id === null ? createHash('sha256').update(data).digest('hex') : object.id;
  const eventId = `api_${state}_${object.updatedAt?.toISOString() ?? 'undated'}`.slice(0, 255);
  const body = JSON.stringify({
    id: eventId,
    event_name: EVENT_NAME[resource],
    account_id: context.accountId,
    account_type: accountType,
    platform_account_id: null,
    idempotency_key: null,
    request_id: null,
    version: 'v1',
    data: object.raw,
  });
  const rawBody = Buffer.from(body);
  return {
    eventId,
    eventName: EVENT_NAME[resource],
    accountId: context.accountId,
    accountType,
    rawBody,
    bodySha256: createHash('sha256').update(rawBody).digest(),
    receivedAt: context.fetchedAt,
  };
}
