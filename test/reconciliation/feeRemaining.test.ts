import { describe, it } from 'vitest';
import { refund, returnedFee, t } from './fixtures.ts';
import { feeRemainingMismatch, paymentFee, type RefundCase, runRefundCase } from './refundFindings.ts';

const refunded = () => [
  refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, 320, 192)], {
    createdAt: '2024-06-16T10:00:00Z',
    updatedAt: '2024-06-16T10:00:05Z',
  }),
];
const secondRefund = () =>
  refund('re_2', 1000, [returnedFee('rtfee_2', 'pyfee_proc', 20, 320, 172)], {
    createdAt: '2024-06-17T10:00:00Z',
  });

// The details give the fee's amount and what the succeeded refunds returned of it.
describe('fee_remaining_mismatch', () => {
  it.each<RefundCase>([
    {
      name: 'a payment snapshot newer than the refund still showing the full fee is a remaining mismatch',
      fees: [
        paymentFee('pyfee_proc', 320, 320, t('2024-06-16T11:00:00Z')),
        paymentFee('pyfee_plat', 50, 50, t('2024-06-16T11:00:00Z')),
      ],
      refunds: refunded(),
      findings: [feeRemainingMismatch('pyfee_proc', 192, 320, 128)],
    },
    {
      name: 'a payment snapshot as new as the refund is evidence of the remaining amount',
      fees: [paymentFee('pyfee_proc', 320, 320, t('2024-06-16T10:00:05Z'))],
      refunds: refunded(),
      findings: [feeRemainingMismatch('pyfee_proc', 192, 320, 128)],
    },
    {
      name: 'a payment snapshot older than the refund is no evidence of the remaining amount',
      fees: [paymentFee('pyfee_proc', 320, 320, t('2024-06-16T10:00:04.999Z'))],
      refunds: refunded(),
      findings: [],
    },
    {
      name: 'a payment snapshot older than the newest of several succeeded refunds is no evidence',
      fees: [paymentFee('pyfee_proc', 320, 192, t('2024-06-16T11:00:00Z'))],
      refunds: [...refunded(), secondRefund()],
      findings: [],
    },
    {
      name: 'a newer payment snapshot must subtract every succeeded refund',
      fees: [paymentFee('pyfee_proc', 320, 192, t('2024-06-18T00:00:00Z'))],
      refunds: [...refunded(), secondRefund()],
      findings: [feeRemainingMismatch('pyfee_proc', 172, 192, 148)],
    },
    {
      name: 'fees returned by a failed refund are not subtracted from the remaining amount',
      fees: [paymentFee('pyfee_proc', 320, 192, t('2024-06-16T11:00:00Z'))],
      refunds: [
        refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, 320, 192)], {
          status: 'failed',
          updatedAt: '2024-06-16T10:00:05Z',
        }),
      ],
      findings: [feeRemainingMismatch('pyfee_proc', 320, 192, 0)],
    },
    {
      name: 'a failed refund newer than the snapshot does not make the snapshot stale',
      fees: [paymentFee('pyfee_proc', 320, 320, t('2024-06-16T11:00:00Z'))],
      refunds: [
        refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, 320, 192)], {
          status: 'failed',
          createdAt: '2024-06-16T12:00:00Z',
        }),
      ],
      findings: [],
    },
    {
      name: 'a fee without refunds whose remaining amount is below its amount is a remaining mismatch',
      fees: [paymentFee('pyfee_proc', 320, 300)],
      refunds: [],
      findings: [feeRemainingMismatch('pyfee_proc', 320, 300, 0)],
    },
    {
      name: 'a fee without a remaining amount is not compared',
      fees: [paymentFee('pyfee_proc', 320, null, t('2024-06-16T11:00:00Z'))],
      refunds: refunded(),
      findings: [],
    },
  ])('$name', runRefundCase);
});

// An ACH return or a void hands every fee back with no refund object (docs/webhooks.md, "What Tally accepts").
describe('fees handed back without a refund', () => {
  const handedBack = [paymentFee('pyfee_proc', 320, 0), paymentFee('pyfee_plat', 50, 0)];

  it.each<RefundCase>([
    {
      name: 'a payment marked returned may show every fee at 0',
      payment: { returned: true },
      fees: handedBack,
      refunds: [],
      findings: [],
    },
    {
      name: 'a voided payment may show every fee at 0',
      payment: { status: 'canceled' },
      fees: handedBack,
      refunds: [],
      findings: [],
    },
    {
      name: 'a failed ACH payment may show every fee at 0',
      payment: { status: 'failed', methodKind: 'ach', cardBrand: null },
      fees: handedBack,
      refunds: [],
      findings: [],
    },
    {
      name: 'a failed card payment showing its fees at 0 has handed nothing back: a remaining mismatch',
      payment: { status: 'failed' },
      fees: handedBack,
      refunds: [],
      findings: [feeRemainingMismatch('pyfee_proc', 320, 0, 0), feeRemainingMismatch('pyfee_plat', 50, 0, 0)],
    },
    {
      name: 'a returned payment whose fee shows part of its amount still is a remaining mismatch',
      payment: { returned: true },
      fees: [paymentFee('pyfee_proc', 320, 100)],
      refunds: [],
      findings: [feeRemainingMismatch('pyfee_proc', 320, 100, 0)],
    },
  ])('$name', runRefundCase);
});
