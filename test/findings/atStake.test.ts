import { describe, expect, it } from 'vitest';
import { checkFeeChain } from '../../src/feeConfigurations/checkFeeChain.ts';
import { compareFeeHistory } from '../../src/feeConfigurations/compareFeeHistory.ts';
import type { FindingCode, FindingDraft } from '../../src/findings/findings.ts';
import { checkCaptureExpiry } from '../../src/ops/captureExpiry.ts';
import { forwardingConflict } from '../../src/projection/forwarding/forwardingConflict.ts';
import { checkAchReturn } from '../../src/reconciliation/achReturns.ts';
import { checkCheckoutFees } from '../../src/reconciliation/checkoutFeeRules.ts';
import { checkDisputes } from '../../src/reconciliation/disputeRules.ts';
import type { PaymentFacts } from '../../src/reconciliation/queries.ts';
import { missedFinding, readApiObject } from '../../src/sweep/compareSnapshot.ts';
import {
  achStandard,
  BASES,
  configuration,
  ecommV1,
  ecommV2,
  facts,
  fee,
  feeRules,
  platform,
  refund,
  refundRules,
  returnedFee,
  t,
  visaEcomm,
  WITHOUT_PLATFORM,
} from '../reconciliation/fixtures.ts';

// The money each finding code puts at stake, in exact cents, for a representative case. The default payment
// is a visa card online, 12,345 ¢, created 2024-06-15; prices are given in the fixtures.

type Case = {
  name: string;
  code: FindingCode;
  subject: string;
  atStake: number | null;
  drafts: () => FindingDraft[];
};

const mastercard = { cardBrand: 'mastercard' } as const;
const rules = (paymentFacts: PaymentFacts) => [
  ...feeRules(paymentFacts),
  ...refundRules(paymentFacts),
  ...checkCheckoutFees(paymentFacts),
  ...checkAchReturn(paymentFacts),
];
const platformFee = fee('pyfee_plat', 'platform_fee', 62, platform);
const withProcessing = (amount: number, source: Parameters<typeof fee>[3]) => [
  fee('pyfee_proc', 'processing_fee', amount, source),
  platformFee,
];
// 1 % + 0 ¢ of 12,350 ¢ = 123.5 ¢: half a cent, rounded up to 124.
const halfCent = configuration('sfc_half', 'processing_ecomm', '1', 0, null, '2024-01-01T00:00:00Z', null);
const proc = { returnedFee: 'rtfee_1', refund: 're_1' };

const CASES: Case[] = [
  {
    name: 'fee_total_mismatch, fee_amount above the fees: the difference',
    code: 'fee_total_mismatch',
    subject: 'py_1',
    atStake: 40,
    drafts: () => rules(facts({ fees: withProcessing(334, visaEcomm), payment: { feeAmount: 436 } })),
  },
  {
    name: 'fee_total_mismatch, fee_amount below the fees: the difference, never negative',
    code: 'fee_total_mismatch',
    subject: 'py_1',
    atStake: 96,
    drafts: () => rules(facts({ fees: withProcessing(334, visaEcomm), payment: { feeAmount: 300 } })),
  },
  {
    name: 'fee_amount_mismatch, charged more than the formula gives (420 for 413)',
    code: 'fee_amount_mismatch',
    subject: 'pyfee_proc',
    atStake: 7,
    drafts: () => rules(facts({ payment: mastercard, fees: withProcessing(420, ecommV2) })),
  },
  {
    name: 'fee_amount_mismatch, charged less than the formula gives (400 for 413)',
    code: 'fee_amount_mismatch',
    subject: 'pyfee_proc',
    atStake: 13,
    drafts: () => rules(facts({ payment: mastercard, fees: withProcessing(400, ecommV2) })),
  },
  {
    name: 'fee_amount_mismatch against a capped fee: 0.8 % of 100,000 ¢ is 800, capped at 500, charged 800',
    code: 'fee_amount_mismatch',
    subject: 'pyfee_proc',
    atStake: 300,
    drafts: () =>
      rules(
        facts({
          payment: { methodKind: 'ach', cardBrand: null, amount: 100_000 },
          fees: [fee('pyfee_proc', 'processing_fee', 800, achStandard)],
          configurations: BASES,
        }),
      ),
  },
  {
    name: 'fee_amount_mismatch on a half cent: 123.5 ¢ is 124 ¢ half-up, charged 123',
    code: 'fee_amount_mismatch',
    subject: 'pyfee_proc',
    atStake: 1,
    drafts: () =>
      rules(
        facts({
          payment: { ...mastercard, amount: 12_350 },
          fees: [fee('pyfee_proc', 'processing_fee', 123, halfCent)],
          configurations: [halfCent],
        }),
      ),
  },
  {
    name: 'fee_configuration_unknown: the whole fee',
    code: 'fee_configuration_unknown',
    subject: 'pyfee_proc',
    atStake: 350,
    drafts: () => rules(facts({ fees: withProcessing(350, 'sfc_gone') })),
  },
  {
    name: 'fee_configuration_not_effective: charged 388 by ecommV1, lapsed; ecommV2 in effect gives 413',
    code: 'fee_configuration_not_effective',
    subject: 'pyfee_proc',
    atStake: 25,
    drafts: () => rules(facts({ payment: mastercard, fees: withProcessing(388, ecommV1) })),
  },
  {
    name: 'fee_configuration_not_applicable: a visa fee of 413 by the base, the visa configuration gives 334',
    code: 'fee_configuration_not_applicable',
    subject: 'pyfee_proc',
    atStake: 79,
    drafts: () => rules(facts({ fees: withProcessing(413, ecommV2) })),
  },
  {
    name: 'platform_fee_missing: the platform fee the configuration gives (0.5 % of 12,345 ¢ = 61.725 → 62)',
    code: 'platform_fee_missing',
    subject: 'py_1',
    atStake: 62,
    drafts: () => rules(facts({ fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm)] })),
  },
  {
    name: 'refund_exceeds_payment: what was refunded beyond the amount',
    code: 'refund_exceeds_payment',
    subject: 'py_1',
    atStake: 155,
    drafts: () =>
      rules(
        facts({
          fees: withProcessing(334, visaEcomm),
          refunds: [refund('re_1', 12_000), refund('re_2', 500, [], { createdAt: '2024-06-17T00:00:00Z' })],
        }),
      ),
  },
  {
    name: 'returned_fee_unknown: what the refund returned against fees the payment does not have',
    code: 'returned_fee_unknown',
    subject: 're_1',
    atStake: 45,
    drafts: () =>
      rules(
        facts({
          fees: withProcessing(334, visaEcomm),
          refunds: [
            refund('re_1', 1000, [
              returnedFee('rtfee_1', 'pyfee_elsewhere', 40, 320, 280),
              returnedFee('rtfee_2', null, 5, 50, 45),
            ]),
          ],
        }),
      ),
  },
  {
    name: "returned_fee_original_mismatch: original_amount against the fee's amount",
    code: 'returned_fee_original_mismatch',
    subject: proc.returnedFee,
    atStake: 14,
    drafts: () =>
      rules(
        facts({
          fees: withProcessing(334, visaEcomm),
          refunds: [refund('re_1', 1000, [returnedFee('rtfee_1', 'pyfee_proc', 34, 320, 300)])],
        }),
      ),
  },
  {
    name: 'returned_fee_exceeds_remaining: what was returned beyond what was left of the fee',
    code: 'returned_fee_exceeds_remaining',
    subject: 'rtfee_2',
    atStake: 66,
    drafts: () =>
      rules(
        facts({
          fees: withProcessing(334, visaEcomm),
          refunds: [
            refund('re_1', 1000, [returnedFee('rtfee_1', 'pyfee_proc', 300, 334, 34)]),
            refund('re_2', 1000, [returnedFee('rtfee_2', 'pyfee_proc', 100, 334, 0)], {
              createdAt: '2024-06-17T00:00:00Z',
            }),
          ],
        }),
      ),
  },
  {
    name: 'returned_fee_remaining_mismatch: remaining_amount against original − returned so far',
    code: 'returned_fee_remaining_mismatch',
    subject: proc.returnedFee,
    atStake: 7,
    drafts: () =>
      rules(
        facts({
          fees: withProcessing(334, visaEcomm),
          refunds: [refund('re_1', 1000, [returnedFee('rtfee_1', 'pyfee_proc', 34, 334, 307)])],
        }),
      ),
  },
  {
    name: "fee_remaining_mismatch: the fee's remaining_amount against amount − returned",
    code: 'fee_remaining_mismatch',
    subject: 'pyfee_proc',
    atStake: 34,
    drafts: () =>
      rules(
        facts({
          fees: [
            fee('pyfee_proc', 'processing_fee', 334, visaEcomm, {
              remainingAmount: 334,
              snapshotUpdatedAt: t('2024-06-20T00:00:00Z'),
            }),
            platformFee,
          ],
          refunds: [refund('re_1', 1000, [returnedFee('rtfee_1', 'pyfee_proc', 34, 334, 300)])],
        }),
      ),
  },
  {
    name: 'checkout_fee_mismatch: the checkout set 200, the payment carries 150',
    code: 'checkout_fee_mismatch',
    subject: 'cho_1',
    atStake: 50,
    drafts: () =>
      rules(
        facts({
          fees: [...withProcessing(334, visaEcomm), fee('pyfee_set', 'platform_fee', 150, null)],
          checkout: { id: 'cho_1', fees: [{ type: 'platform_fee', amount: 200 }] },
        }),
      ),
  },
  {
    name: 'checkout_fee_mismatch: the differences of every fee type added up, a missing fee whole',
    code: 'checkout_fee_mismatch',
    subject: 'cho_1',
    atStake: 30 + 25,
    drafts: () =>
      checkCheckoutFees(
        facts({
          fees: [fee('pyfee_set', 'platform_fee', 230, null)],
          checkout: {
            id: 'cho_1',
            fees: [
              { type: 'platform_fee', amount: 200 },
              { type: 'processing_fee', amount: 25 },
            ],
          },
        }),
      ),
  },
  {
    name: 'ach_return: the amount of the payment',
    code: 'ach_return',
    subject: 'py_1',
    atStake: 12_345,
    drafts: () =>
      checkAchReturn(
        facts({
          payment: {
            methodKind: 'ach',
            cardBrand: null,
            status: 'failed',
            errorDescription: 'ACCOUNT_CLOSED',
          },
        }),
      ),
  },
  {
    name: 'dispute_open: the disputed amount',
    code: 'dispute_open',
    subject: 'dp_1',
    atStake: 2500,
    drafts: () => checkDisputes({ disputes: [dispute('needs_response', 2500)] }),
  },
  {
    name: 'dispute_lost: the amount lost',
    code: 'dispute_lost',
    subject: 'dp_1',
    atStake: 4200,
    drafts: () => checkDisputes({ disputes: [dispute('lost', 4200)] }),
  },
  {
    name: 'dispute_open without an amount measures nothing',
    code: 'dispute_open',
    subject: 'dp_1',
    atStake: null,
    drafts: () => checkDisputes({ disputes: [dispute('needs_response', null)] }),
  },
  {
    name: 'capture_expiring: the authorized amount',
    code: 'capture_expiring',
    subject: 'py_auth',
    atStake: 7700,
    drafts: () => capture('2026-11-20T00:00:00Z'),
  },
  {
    name: 'capture_expired: the authorized amount',
    code: 'capture_expired',
    subject: 'py_auth',
    atStake: 7700,
    drafts: () => capture('2026-11-28T00:00:00Z'),
  },
  {
    name: 'event_missed on a payment: its amount as the API shows it',
    code: 'event_missed',
    subject: 'py_missed',
    atStake: 9900,
    drafts: () => missed('payments', { amount: 9900, currency: 'usd' }),
  },
  {
    name: 'event_missed on a forwarding request measures no money',
    code: 'event_missed',
    subject: 'py_missed',
    atStake: null,
    drafts: () => missed('forwarding_requests', { amount: 9900 }),
  },
  {
    name: 'forwarding_outcome_conflict measures no money',
    code: 'forwarding_outcome_conflict',
    subject: 'fwd_1',
    atStake: null,
    drafts: () => {
      const outcome = (status: string) => ({ status, failureReason: null, responseStatusCode: null });
      const conflict = forwardingConflict('fwd_1', [outcome('completed'), outcome('failed')]);
      return conflict ? [conflict] : [];
    },
  },
  {
    name: 'fee_configuration_chain_broken measures no money',
    code: 'fee_configuration_chain_broken',
    subject: 'acc_1:processing_ecomm',
    atStake: null,
    drafts: () =>
      checkFeeChain(
        'acc_1',
        [ecommV1, { ...ecommV2, effectiveStart: t('2024-07-01T00:00:00Z') }],
        CHECKED_AT,
      ),
  },
  {
    name: 'base_fee_configuration_missing measures no money',
    code: 'base_fee_configuration_missing',
    subject: 'acc_1:processing_ecomm',
    atStake: null,
    drafts: () => checkFeeChain('acc_1', [ecommV1], CHECKED_AT),
  },
  {
    name: 'fee_configuration_history_rewritten measures no money',
    code: 'fee_configuration_history_rewritten',
    subject: 'sfc_ecomm_v1',
    atStake: null,
    drafts: () => compareFeeHistory(WITHOUT_PLATFORM, WITHOUT_PLATFORM.slice(1)).findings,
  },
];

const CHECKED_AT = t('2024-08-01T00:00:00Z');

function dispute(status: string, amount: number | null) {
  return {
    id: 'dp_1',
    paymentId: 'py_1',
    accountId: 'acc_1',
    amount,
    currency: 'usd',
    reason: 'fraudulent',
    dueDate: '2026-11-20',
    status,
  };
}

function capture(now: string) {
  const authorization = {
    paymentId: 'py_auth',
    accountId: 'acc_1',
    amount: 7700,
    currency: 'usd',
    authorizedAt: t('2026-11-14T00:00:00Z'),
  };
  return checkCaptureExpiry([authorization], [24, 72], t(now)).findings;
}

function missed(resource: 'payments' | 'forwarding_requests', fields: Record<string, unknown>) {
  const object = readApiObject({ id: 'py_missed', updated_at: '2026-11-20T10:00:00Z', ...fields });
  const draft = missedFinding(resource, object, undefined, {
    accountId: 'acc_1',
    graceEnd: t('2026-11-20T11:00:00Z'),
  });
  return draft ? [draft] : [];
}

describe('at_stake: the money each finding code puts at stake', () => {
  it.each(CASES)('$name', ({ code, subject, atStake, drafts }) => {
    const found = drafts().filter((draft) => draft.code === code && draft.subjectId === subject);
    expect(found.map((draft) => draft.atStake)).toEqual([atStake]);
  });

  it('a missed payment carries the currency the API states, so its amount reads as money', () => {
    expect(missed('payments', { amount: 9900, currency: 'cad' })[0]).toMatchObject({
      currency: 'cad',
      atStake: 9900,
    });
  });
});
