import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { missedFinding, outcomeOf, readApiObject, snapshotOf } from '../../src/sweep/compareSnapshot.ts';

// The sweep's pure decisions, as tables: what is new, what was missed, and the raw-log row of a snapshot.
const at = (iso: string) => new Date(iso);
const object = readApiObject({
  id: 'py_1',
  is_test: true,
  created_at: '2026-11-20T10:00:00Z',
  updated_at: '2026-11-20T11:00:00.000Z',
});

describe('outcomeOf', () => {
  it.each([
    ['unknown to Tally', undefined, 'new'],
    ['projected older', { updatedAt: at('2026-11-20T10:30:00Z'), deliveredUpdatedAt: null }, 'newer'],
    ['projected the same', { updatedAt: at('2026-11-20T11:00:00Z'), deliveredUpdatedAt: null }, 'unchanged'],
    ['projected newer', { updatedAt: at('2026-11-20T12:00:00Z'), deliveredUpdatedAt: null }, 'unchanged'],
  ] as const)('%s → %s', (_name, projected, outcome) => {
    expect(outcomeOf(object, projected)).toBe(outcome);
  });
  it('an object without an id cannot be compared: it is new', () => {
    expect(outcomeOf(readApiObject({ updated_at: '2026-11-20T11:00:00Z' }), undefined)).toBe('new');
  });
});

describe('missedFinding', () => {
  const context = { accountId: 'acc_1', graceEnd: at('2026-11-20T11:30:00Z') };
  it('nothing delivered, past the grace period: the object was missed', () => {
    expect(missedFinding('payments', object, undefined, context)).toEqual({
      code: 'event_missed',
      severity: 'error',
      subjectType: 'payment',
      subjectId: 'py_1',
      accountId: 'acc_1',
      expected: '2026-11-20T11:00:00.000Z',
      actual: null,
      // The API object states no amount.
      atStake: null,
      details: {
        missing: 'object',
        api_updated_at: '2026-11-20T11:00:00.000Z',
        delivered_updated_at: null,
        account_id: 'acc_1',
      },
    });
  });
  it('an older state delivered: the newer state was missed', () => {
    const projected = {
      updatedAt: at('2026-11-20T11:00:00Z'),
      deliveredUpdatedAt: at('2026-11-20T10:00:00Z'),
    };
    expect(missedFinding('forwarding_requests', object, projected, context)).toMatchObject({
      subjectType: 'forwarding_request',
      actual: '2026-11-20T10:00:00.000Z',
      details: { missing: 'newer_state', delivered_updated_at: '2026-11-20T10:00:00.000Z' },
    });
  });
  it.each([
    ['within the grace period', undefined, { ...context, graceEnd: at('2026-11-20T10:59:59Z') }],
    [
      'delivered',
      { updatedAt: at('2026-11-20T11:00:00Z'), deliveredUpdatedAt: at('2026-11-20T11:00:00Z') },
      context,
    ],
  ])('%s: nothing missed', (_name, projected, window) => {
    expect(missedFinding('payments', object, projected, window)).toBeNull();
  });
});

describe('snapshotOf', () => {
  it('is an envelope keyed by the object and its updated_at, typed by is_test, hashed as stored', () => {
    const snapshot = snapshotOf('payments', object, {
      accountId: 'acc_1',
      accountType: 'live',
      fetchedAt: at('2026-11-20T12:00:00Z'),
    });
    expect(snapshot).toMatchObject({
      eventId: 'api_py_1_2026-11-20T11:00:00.000Z',
      eventName: 'payment.api_snapshot',
      accountType: 'test',
    });
    const body = JSON.parse(snapshot.rawBody.toString());
    expect(body).toMatchObject({ id: snapshot.eventId, account_type: 'test', data: object.raw });
    expect(snapshot.bodySha256).toEqual(createHash('sha256').update(snapshot.rawBody).digest());
  });
});
