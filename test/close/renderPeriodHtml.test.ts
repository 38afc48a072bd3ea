import { describe, expect, it } from 'vitest';
import { periodDays, readableDay } from '../../src/close/renderPeriodHtml.ts';

describe('the days a period report names', () => {
  it('read as calendar days, not instants', () => {
    expect(readableDay('2026-10-01')).toBe('1 Oct 2026');
    expect(readableDay('2026-09-30')).toBe('30 Sep 2026');
  });

  it("run from a period's first day to its last, leap years included", () => {
    expect(periodDays('2026-10')).toBe('1 Oct 2026 – 31 Oct 2026');
    expect(periodDays('2028-02')).toBe('1 Feb 2028 – 29 Feb 2028');
    expect(periodDays('2026-12')).toBe('1 Dec 2026 – 31 Dec 2026');
  });
});
