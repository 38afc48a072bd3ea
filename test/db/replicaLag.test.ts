import { describe, expect, it } from 'vitest';
import { createLagMeter, lsnValue, type StandbyReplay } from '../../src/db/replicaLag.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);
const replay = (replayed: string | null, sinceLastReplaySeconds: number | null): StandbyReplay => ({
  inRecovery: true,
  replayedLsn: replayed === null ? null : lsnValue(replayed),
  sinceLastReplaySeconds,
});

describe('the replica lag meter', () => {
  it('reads WAL positions across the 32-bit halves', () => {
    expect(lsnValue('0/16B3748')).toBe(0x16b3748n);
    expect(lsnValue('16/B374D848') > lsnValue('15/FFFFFFFF')).toBe(true);
  });

  it('a standby that has replayed what the primary had written is lag 0, however old its last transaction', () => {
    const measure = createLagMeter();
    expect(measure(at(0), lsnValue('0/5000'), replay('0/5000', 86_400))).toBe(0);
  });

  it('behind on a busy primary, the age of its last replayed transaction', () => {
    const measure = createLagMeter();
    expect(measure(at(0), lsnValue('0/9000'), replay('0/5000', 0.25))).toBe(0.25);
  });

  it('behind with an old last transaction, the time since a check whose primary position it has replayed', () => {
    const measure = createLagMeter();
    expect(measure(at(0), lsnValue('0/5000'), replay('0/5000', 600))).toBe(0);
    expect(measure(at(2), lsnValue('0/6000'), replay('0/5000', 602))).toBe(2);
    expect(measure(at(4), lsnValue('0/7000'), replay('0/6000', 604))).toBe(2);
    // Stuck: the bound grows with every check.
    expect(measure(at(10), lsnValue('0/8000'), replay('0/6000', 610))).toBe(8);
  });

  it('says nothing when nothing bounds it: behind, no transaction replayed and no check caught up with', () => {
    const measure = createLagMeter();
    expect(measure(at(0), lsnValue('0/9000'), replay('0/5000', null))).toBeNull();
    expect(measure(at(2), lsnValue('0/9000'), replay(null, null))).toBeNull();
    expect(measure(at(4), lsnValue('0/9000'), replay('0/9000', null))).toBe(0);
  });

  it('never reports a standby ahead of the primary when the clocks differ', () => {
    const measure = createLagMeter();
    expect(measure(at(0), lsnValue('0/9000'), replay('0/5000', -0.3))).toBe(0);
  });
});
