import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret, signatureHeader, webhookHeaders } from '../../src/subscriptions/signing.ts';
import { isRefusedAddress } from '../../src/subscriptions/targets.ts';

const body = JSON.stringify({ id: 'chg_7', type: 'payment.updated', data: { amount: 1234 } });

describe('Standard Webhooks signing', () => {
  it('signs what the standardwebhooks package verifies', () => {
    const secret = newSecret();
    const headers = webhookHeaders([secret], 'chg_7', body, new Date());
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('signs "<id>.<timestamp>.<body>" with the secret’s decoded bytes, as v1,<base64>', () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString('base64')}`;
    const expected = createHmac('sha256', key).update(`chg_7.1700000000.${body}`).digest('base64');
    expect(signatureHeader([secret], 'chg_7', 1_700_000_000, body)).toBe(`v1,${expected}`);
  });

  it('carries two signatures, the new secret’s first, each verifying alone', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const headers = webhookHeaders([current, previous], 'chg_8', body, new Date());
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(
      signatureHeader([current], 'chg_8', Number(headers['webhook-timestamp']), body),
    );
    expect(new Webhook(current).verify(body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
  });
});

describe('refused addresses', () => {
  it.each([
    ['169.254.169.254', true],
    ['169.254.0.1', true],
    ['fe80::1', true],
    ['febf::1', true],
    ['fd00:ec2::254', true],
    ['::ffff:169.254.169.254', true],
    ['100.100.100.200', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['192.168.0.1', false],
    ['::1', false],
    ['fd00::1', false],
    ['93.184.216.34', false],
  ])('%s refused: %s', (address, refused) => {
    expect(isRefusedAddress(address)).toBe(refused);
  });
});
