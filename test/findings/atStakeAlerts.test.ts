import { describe, expect, it } from 'vitest';
import { alertMessage } from '../../src/ops/alertMessage.ts';
import type { WaitingAlert } from '../../src/ops/alertQueries.ts';
import { digestPayload } from '../../src/ops/digests.ts';
import type { AlertRow } from '../../src/ops/queries.ts';

// Alerts and digests show the finding's at_stake as its rule measured it: never a zero for a finding that
// measures no money, never an amount from elsewhere in its details.

const CREATED = new Date('2026-11-20T10:00:00Z');

function findingAlert(
  id: number,
  code: string,
  atStake: number | null,
  currency: string | null,
): WaitingAlert {
  return {
    id,
    kind: code,
    subject_id: `subject_${id}`,
    account_id: 'acc_1',
    digest_due_at: CREATED,
    resolved: false,
    payload: {
      finding_id: id,
      code,
      severity: 'error',
      subject_type: 'payment',
      subject_id: `subject_${id}`,
      account_id: 'acc_1',
      currency,
      expected: null,
      actual: null,
      at_stake: atStake,
      details: { amount: 99_999 },
      console_path: `/console/findings/fnd_${id}`,
    },
  };
}

const asRow = (alert: WaitingAlert): AlertRow => ({
  ...alert,
  dedupe_key: `finding:${alert.id}`,
  status: 'pending',
  attempts: 0,
  last_error: null,
  created_at: CREATED,
  sent_at: null,
  finding_id: alert.id,
  digest_id: null,
  deliveries: {},
});

describe('a finding alert', () => {
  it('names the money at stake in the finding’s currency', () => {
    const message = alertMessage(asRow(findingAlert(1, 'checkout_fee_mismatch', 50, 'usd')));
    expect(message.text).toBe(
      'Finding checkout_fee_mismatch (error) opened on payment subject_1: 0.50 USD at stake. Console: /console/findings/fnd_1',
    );
    expect(message.attachments[0]?.fields).toContainEqual({
      title: 'At stake',
      value: '0.50 USD',
      short: true,
    });
  });

  it('names none when the finding measures no money, whatever its details hold', () => {
    const message = alertMessage(asRow(findingAlert(2, 'forwarding_outcome_conflict', null, null)));
    expect(message.text).toBe(
      'Finding forwarding_outcome_conflict (error) opened on payment subject_2. Console: /console/findings/fnd_2',
    );
    expect(message.attachments[0]?.fields).toContainEqual({ title: 'At stake', value: '—', short: true });
  });
});

describe('a digest', () => {
  it('adds up at_stake per currency, leaves out findings that measure none, and still counts an authorization’s amount', () => {
    const capture: WaitingAlert = {
      id: 4,
      kind: 'capture_expiring',
      subject_id: 'py_auth',
      account_id: 'acc_1',
      digest_due_at: CREATED,
      resolved: false,
      payload: { payment_id: 'py_auth', amount: 7700, currency: 'usd' },
    };
    const payload = digestPayload(
      [
        findingAlert(1, 'checkout_fee_mismatch', 50, 'usd'),
        findingAlert(2, 'forwarding_outcome_conflict', null, null),
        findingAlert(3, 'fee_configuration_unknown', 300, 'usd'),
        capture,
      ],
      0,
      CREATED,
      15,
    );
    expect(payload.at_stake).toEqual([{ currency: 'usd', cents: 8050 }]);
    expect(payload.by_code).toEqual([
      { code: 'capture_expiring', alerts: 1, at_stake: [{ currency: 'usd', cents: 7700 }] },
      { code: 'checkout_fee_mismatch', alerts: 1, at_stake: [{ currency: 'usd', cents: 50 }] },
      { code: 'fee_configuration_unknown', alerts: 1, at_stake: [{ currency: 'usd', cents: 300 }] },
      { code: 'forwarding_outcome_conflict', alerts: 1, at_stake: [] },
    ]);
    expect(payload.top.map((item) => [item.code, item.at_stake, item.currency])).toEqual([
      ['capture_expiring', 7700, 'usd'],
      ['fee_configuration_unknown', 300, 'usd'],
      ['checkout_fee_mismatch', 50, 'usd'],
      ['forwarding_outcome_conflict', null, null],
    ]);
    const message = alertMessage(
      asRow({ ...findingAlert(9, 'digest', null, null), kind: 'digest', payload: { ...payload } }),
    );
    expect(message.attachments[0]?.fields).toContainEqual({
      title: 'forwarding_outcome_conflict subject_2',
      value: '—',
      short: true,
    });
  });
});
