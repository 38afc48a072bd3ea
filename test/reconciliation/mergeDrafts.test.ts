import { describe, expect, it } from 'vitest';
import type { FindingDraft } from '../../src/findings/findings.ts';
import { mergeDraftsBySubject } from '../../src/findings/mergeDrafts.ts';

const draft = (overrides: Partial<FindingDraft>): FindingDraft => ({
  code: 'returned_fee_remaining_mismatch',
  severity: 'warning',
  subjectType: 'returned_fee',
  subjectId: 'rtfee_1',
  expected: 10,
  actual: 12,
  atStake: 2,
  details: { payment_id: 'py_1' },
  ...overrides,
});

describe('drafts merged by (code, subject) before they are written', () => {
  it('keeps drafts of different codes or subjects as they are, in order', () => {
    const drafts = [
      draft({}),
      draft({ subjectId: 'rtfee_2' }),
      draft({ code: 'returned_fee_original_mismatch', severity: 'error' }),
      // Same id, another subject type: another subject.
      draft({ subjectType: 'refund' }),
    ];
    expect(mergeDraftsBySubject(drafts)).toEqual(drafts);
  });

  it('turns two drafts of one key into one: the first stands, the most severe severity, nothing dropped', () => {
    const merged = mergeDraftsBySubject([
      draft({}),
      draft({ subjectId: 'rtfee_2' }),
      draft({
        severity: 'error',
        expected: 20,
        actual: 25,
        atStake: 5,
        details: { payment_id: 'py_1', note: 'second' },
      }),
      draft({
        severity: 'info',
        expected: 30,
        actual: 31,
        atStake: 1,
        details: { payment_id: 'py_1', note: 'third' },
      }),
    ]);
    expect(merged).toEqual([
      {
        code: 'returned_fee_remaining_mismatch',
        severity: 'error',
        subjectType: 'returned_fee',
        subjectId: 'rtfee_1',
        expected: 10,
        actual: 12,
        atStake: 2,
        details: {
          payment_id: 'py_1',
          also_reported: [
            { expected: 20, actual: 25, at_stake: 5, details: { payment_id: 'py_1', note: 'second' } },
            { expected: 30, actual: 31, at_stake: 1, details: { payment_id: 'py_1', note: 'third' } },
          ],
        },
      },
      draft({ subjectId: 'rtfee_2' }),
    ]);
  });
});
