import { describe, it } from 'vitest';
import { refund, returnedFee, t } from './fixtures.ts';
import { FEES, paymentFee, type RefundCase, refundExceeds, runRefundCase } from './refundFindings.ts';

describe('consistent refunds', () => {
  it.each<RefundCase>([
    {
      name: 'a partial refund returning part of the processing fee, seen by a newer payment snapshot, has no findings',
      fees: [
        paymentFee('pyfee_proc', 320, 192, t('2024-06-16T11:00:00Z')),
        paymentFee('pyfee_plat', 50, 50, t('2024-06-16T11:00:00Z')),
      ],
      refunds: [
        refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, 320, 192)], {
          createdAt: '2024-06-16T10:00:00Z',
          updatedAt: '2024-06-16T10:00:05Z',
        }),
      ],
      findings: [],
    },
    {
      name: 'a full refund returning every fee entirely has no findings',
      fees: [
        paymentFee('pyfee_proc', 320, 0, t('2024-06-17T00:00:00Z')),
        paymentFee('pyfee_plat', 50, 0, t('2024-06-17T00:00:00Z')),
      ],
      refunds: [
        refund('re_1', 10_000, [
          returnedFee('rtfee_1', 'pyfee_proc', 320, 320, 0),
          returnedFee('rtfee_2', 'pyfee_plat', 50, 50, 0),
        ]),
      ],
      findings: [],
    },
    {
      name: 'two partial refunds returning a fee in steps, each leaving the right remainder, have no findings',
      fees: [
        paymentFee('pyfee_proc', 320, 20, t('2024-06-18T00:00:00Z')),
        paymentFee('pyfee_plat', 50, 50, t('2024-06-18T00:00:00Z')),
      ],
      refunds: [
        refund('re_b', 3000, [returnedFee('rtfee_b', 'pyfee_proc', 100, 320, 20)], {
          createdAt: '2024-06-17T10:00:00Z',
        }),
        refund('re_a', 3000, [returnedFee('rtfee_a', 'pyfee_proc', 200, 320, 120)], {
          createdAt: '2024-06-16T10:00:00Z',
        }),
      ],
      findings: [],
    },
    {
      name: 'a refund returning no fees has no findings',
      fees: FEES,
      refunds: [refund('re_1', 4000)],
      findings: [],
    },
    {
      name: 'a payment without refunds whose fees show their full remaining amount has no findings',
      fees: [paymentFee('pyfee_proc', 320, 320), paymentFee('pyfee_plat', 50, 50)],
      refunds: [],
      findings: [],
    },
    {
      name: 'returned fees with unknown amounts are not compared',
      fees: FEES,
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', null, null, null)])],
      findings: [],
    },
  ])('$name', runRefundCase);
});

describe('refund_exceeds_payment (the details list the succeeded refunds)', () => {
  it.each<RefundCase>([
    {
      name: 'succeeded refunds adding up to more than the payment exceed it',
      fees: FEES,
      refunds: [refund('re_1', 6000), refund('re_2', 5000, [], { createdAt: '2024-06-17T10:00:00Z' })],
      findings: [
        refundExceeds(11_000, [
          { id: 're_1', amount: 6000 },
          { id: 're_2', amount: 5000 },
        ]),
      ],
    },
    {
      name: 'a single succeeded refund larger than the payment exceeds it',
      fees: FEES,
      refunds: [refund('re_1', 10_001)],
      findings: [refundExceeds(10_001, [{ id: 're_1', amount: 10_001 }])],
    },
    {
      name: 'succeeded refunds adding up to exactly the payment do not exceed it',
      fees: FEES,
      refunds: [refund('re_1', 6000), refund('re_2', 4000, [], { createdAt: '2024-06-17T10:00:00Z' })],
      findings: [],
    },
    {
      name: 'a failed refund does not count towards the refunded total',
      fees: FEES,
      refunds: [
        refund('re_1', 6000),
        refund('re_2', 5000, [], { status: 'failed', createdAt: '2024-06-17T10:00:00Z' }),
      ],
      findings: [],
    },
    {
      name: 'a pending refund does not count towards the refunded total',
      fees: FEES,
      refunds: [
        refund('re_1', 6000),
        refund('re_2', 5000, [], { status: 'pending', createdAt: '2024-06-17T10:00:00Z' }),
      ],
      findings: [],
    },
    {
      name: 'only the succeeded refunds are added up, and listed, when some failed',
      fees: FEES,
      refunds: [
        refund('re_1', 6000),
        refund('re_2', 9000, [], { status: 'failed', createdAt: '2024-06-17T10:00:00Z' }),
        refund('re_3', 4500, [], { createdAt: '2024-06-18T10:00:00Z' }),
      ],
      findings: [
        refundExceeds(10_500, [
          { id: 're_1', amount: 6000 },
          { id: 're_3', amount: 4500 },
        ]),
      ],
    },
  ])('$name', runRefundCase);
});
