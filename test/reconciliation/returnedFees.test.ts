import { describe, it } from 'vitest';
import { refund, returnedFee } from './fixtures.ts';
import {
  exceedsRemaining,
  FEES,
  originalMismatch,
  type RefundCase,
  remainingMismatch,
  returnedFeeUnknown,
  runRefundCase,
} from './refundFindings.ts';

const later = { createdAt: '2024-06-17T10:00:00Z' };

describe('returned_fee_unknown', () => {
  it.each<RefundCase>([
    {
      name: 'a returned fee naming a fee the payment does not have is unknown, reported on the refund',
      fees: FEES,
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_other', 128, 320, 192)])],
      findings: [returnedFeeUnknown('re_1', [['rtfee_1', 'pyfee_other']], 128)],
    },
    {
      name: 'a returned fee naming no fee at all is unknown',
      fees: FEES,
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', null, 128, 320, 192)])],
      findings: [returnedFeeUnknown('re_1', [['rtfee_1', null]], 128)],
    },
    {
      // Two drafts of one (code, subject) once failed the whole run: the findings upsert takes one per key.
      name: 'a refund returning two fees the payment does not have is one finding on the refund, listing both',
      fees: FEES,
      refunds: [
        refund('re_1', 4000, [
          returnedFee('rtfee_1', 'pyfee_other_proc', 128, 320, 192),
          returnedFee('rtfee_2', 'pyfee_other_plat', 20, 50, 30),
          returnedFee('rtfee_3', 'pyfee_proc', 128, 320, 192),
        ]),
      ],
      findings: [
        returnedFeeUnknown(
          're_1',
          [
            ['rtfee_1', 'pyfee_other_proc'],
            ['rtfee_2', 'pyfee_other_plat'],
          ],
          128 + 20,
        ),
      ],
    },
    {
      name: 'a returned fee is not reported unknown while the payment has no fees yet',
      fees: [],
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, 320, 192)])],
      findings: [],
    },
    {
      name: 'a returned fee of a failed refund is not checked',
      fees: FEES,
      refunds: [
        refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_other', 128, 320, 192)], { status: 'failed' }),
      ],
      findings: [],
    },
  ])('$name', runRefundCase);
});

describe('returned_fee_original_mismatch', () => {
  it.each<RefundCase>([
    {
      name: "a returned fee whose original_amount differs from the fee's amount is an original mismatch",
      fees: FEES,
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, 300, 192)])],
      findings: [originalMismatch({ returnedFee: 'rtfee_1', refund: 're_1', fee: 'pyfee_proc' }, 300)],
    },
    {
      name: 'a returned fee without an original_amount is not compared',
      fees: FEES,
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, null, 192)])],
      findings: [],
    },
  ])('$name', runRefundCase);
});

describe('returned_fee_exceeds_remaining (the details say how much had been returned before)', () => {
  it.each<RefundCase>([
    {
      name: 'a single refund returning more than the whole fee exceeds what was left',
      fees: FEES,
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_plat', 60, 50, null)])],
      findings: [
        exceedsRemaining({ returnedFee: 'rtfee_1', refund: 're_1', fee: 'pyfee_plat' }, 50, 60, 0, 10),
      ],
    },
    {
      name: 'the later of two refunds (by creation time) returning more than was left of the fee exceeds it',
      fees: FEES,
      // Listed newest first and with the older refund updated last: only the creation order counts.
      refunds: [
        refund('re_a', 3000, [returnedFee('rtfee_late', 'pyfee_proc', 150, 320, null)], {
          createdAt: '2024-06-17T10:00:00Z',
          updatedAt: '2024-06-17T10:00:05Z',
        }),
        refund('re_b', 3000, [returnedFee('rtfee_early', 'pyfee_proc', 200, 320, 120)], {
          createdAt: '2024-06-16T10:00:00Z',
          updatedAt: '2024-06-18T10:00:00Z',
        }),
      ],
      findings: [
        exceedsRemaining({ returnedFee: 'rtfee_late', refund: 're_a', fee: 'pyfee_proc' }, 120, 150, 200, 30),
      ],
    },
    {
      name: 'two refunds returning exactly the whole fee between them do not exceed it',
      fees: FEES,
      refunds: [
        refund('re_1', 3000, [returnedFee('rtfee_1', 'pyfee_proc', 200, 320, 120)]),
        refund('re_2', 3000, [returnedFee('rtfee_2', 'pyfee_proc', 120, 320, 0)], later),
      ],
      findings: [],
    },
    {
      name: 'fees returned by a failed refund are not counted as returned',
      fees: FEES,
      refunds: [
        refund('re_1', 3000, [returnedFee('rtfee_1', 'pyfee_proc', 320, 320, 0)], { status: 'failed' }),
        refund('re_2', 3000, [returnedFee('rtfee_2', 'pyfee_proc', 320, 320, 0)], later),
      ],
      findings: [],
    },
    {
      name: 'returned amounts are tracked per fee',
      fees: FEES,
      refunds: [
        refund('re_1', 3000, [
          returnedFee('rtfee_1', 'pyfee_proc', 300, 320, 20),
          returnedFee('rtfee_2', 'pyfee_plat', 40, 50, 10),
        ]),
        refund('re_2', 3000, [returnedFee('rtfee_3', 'pyfee_plat', 20, 50, null)], later),
      ],
      findings: [
        exceedsRemaining({ returnedFee: 'rtfee_3', refund: 're_2', fee: 'pyfee_plat' }, 10, 20, 40, 10),
      ],
    },
    {
      name: 'after an earlier over-return nothing is left to return',
      fees: FEES,
      refunds: [
        refund('re_1', 3000, [returnedFee('rtfee_1', 'pyfee_plat', 60, 50, null)]),
        refund('re_2', 3000, [returnedFee('rtfee_2', 'pyfee_plat', 5, 50, null)], later),
      ],
      findings: [
        exceedsRemaining({ returnedFee: 'rtfee_1', refund: 're_1', fee: 'pyfee_plat' }, 50, 60, 0, 10),
        exceedsRemaining({ returnedFee: 'rtfee_2', refund: 're_2', fee: 'pyfee_plat' }, 0, 5, 60, 5),
      ],
    },
  ])('$name', runRefundCase);
});

describe('returned_fee_remaining_mismatch (the details say how much was returned so far)', () => {
  it.each<RefundCase>([
    {
      name: 'a returned fee whose remaining_amount is not original minus returned is a remaining mismatch',
      fees: FEES,
      refunds: [refund('re_1', 4000, [returnedFee('rtfee_1', 'pyfee_proc', 128, 320, 200)])],
      findings: [
        remainingMismatch({ returnedFee: 'rtfee_1', refund: 're_1', fee: 'pyfee_proc' }, 192, 200, 128),
      ],
    },
    {
      name: 'a second refund whose remaining_amount ignores the first refund is a remaining mismatch',
      fees: FEES,
      refunds: [
        refund('re_1', 3000, [returnedFee('rtfee_1', 'pyfee_proc', 100, 320, 220)]),
        refund('re_2', 3000, [returnedFee('rtfee_2', 'pyfee_proc', 50, 320, 270)], later),
      ],
      findings: [
        remainingMismatch({ returnedFee: 'rtfee_2', refund: 're_2', fee: 'pyfee_proc' }, 170, 270, 150),
      ],
    },
    {
      name: 'a refund whose remaining_amount counts a failed refund is a remaining mismatch',
      fees: FEES,
      refunds: [
        refund('re_1', 3000, [returnedFee('rtfee_1', 'pyfee_proc', 100, 320, 220)], { status: 'failed' }),
        refund('re_2', 3000, [returnedFee('rtfee_2', 'pyfee_proc', 50, 320, 170)], later),
      ],
      findings: [
        remainingMismatch({ returnedFee: 'rtfee_2', refund: 're_2', fee: 'pyfee_proc' }, 270, 170, 50),
      ],
    },
  ])('$name', runRefundCase);
});
