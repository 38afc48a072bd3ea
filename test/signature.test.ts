import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTimestamp, sign, verifySignature } from '../src/webhooks/signature.ts';

const rawBody = Buffer.from('{"id":"evt_1"}');
const now = new Date('2026-11-22T12:00:00Z');
const timestamp = String(now.getTime() / 1000);
const check = (overrides: Partial<Parameters<typeof verifySignature>[0]>) =>
  verifySignature({
    secrets: ['one', 'two'],
    timestamp,
    signature: sign('two', timestamp, rawBody),
    rawBody,
    now,
    toleranceSeconds: 300,
    ...overrides,
  });

describe('signatures', () => {
  it('reproduce the provider SDK test vector exactly', () => {
    const vector = JSON.parse(
      readFileSync(new URL('./fixtures/recorded/sdk-signature-vector.jsonl', import.meta.url), 'utf8'),
    );
    expect(sign('justifi-test-key', '1668122947', vector.body)).toBe(
      'd190761659ee22eb6eab46e23934565c48edd750ce44c939003e6dae070ada19',
    );
  });

  it('accept any configured secret and an uppercase hex signature', () => {
    expect(check({})).toEqual({ ok: true });
    expect(check({ signature: sign('one', timestamp, rawBody).toUpperCase() })).toEqual({ ok: true });
  });

  it.each([
    ['a secret not configured', { signature: sign('three', timestamp, rawBody) }, 'signature mismatch'],
    ['no timestamp', { timestamp: undefined }, 'missing signature headers'],
    ['no signature', { signature: undefined }, 'missing signature headers'],
    ['a short signature', { signature: 'abcd' }, 'signature mismatch'],
    ['301 s of age', { now: new Date(now.getTime() + 301_000) }, 'timestamp outside tolerance'],
    ['301 s in the future', { now: new Date(now.getTime() - 301_000) }, 'timestamp outside tolerance'],
  ])('refuse %s', (_name, overrides, reason) => {
    expect(check(overrides)).toEqual({ ok: false, reason });
  });

  it('accept exactly the tolerance', () => {
    expect(check({ now: new Date(now.getTime() + 300_000) })).toEqual({ ok: true });
  });
});

describe('timestamps', () => {
  it.each([
    ['1668122947', '2022-11-10T23:29:07.000Z'],
    ['2022-11-10T23:29:07Z', '2022-11-10T23:29:07.000Z'],
    ['2022-11-10T23:29:07.123+01:00', '2022-11-10T22:29:07.123Z'],
  ])('read %s as %s', (value, iso) => {
    expect(parseTimestamp(value)?.toISOString()).toBe(iso);
  });

  it.each(['', 'yesterday', '1668122947.5', '2022-13-45T99:00:00Z', '-1'])('refuse %j', (value) => {
    expect(parseTimestamp(value)).toBeNull();
  });
});
