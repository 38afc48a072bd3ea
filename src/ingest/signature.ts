import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'justifi-timestamp';
export const SIGNATURE_HEADER = 'justifi-signature';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** Lowercase hex HMAC-SHA256(secret, `<timestamp>.<raw body>`), as the provider signs. */
export function sign(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The provider documents ISO timestamps but sends Unix seconds; both are accepted. */
export function parseTimestamp(value: string): Date | null {
  if (/^\d{1,12}$/.test(value)) return new Date(Number(value) * 1000);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function verifySignature(input: {
  secrets: readonly string[];
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  now: Date;
  toleranceSeconds: number;
}): SignatureCheck {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) return { ok: false, reason: 'missing signature headers' };
  const signedAt = parseTimestamp(timestamp);
  if (!signedAt) return { ok: false, reason: 'unreadable timestamp' };
  if (Math.abs(input.now.getTime() - signedAt.getTime()) > input.toleranceSeconds * 1000) {
    return { ok: false, reason: 'timestamp outside tolerance' };
  }
  if (!HEX_SHA256.test(signature)) return { ok: false, reason: 'signature mismatch' };
  const given = Buffer.from(signature, 'hex');
  // Every secret is tried, so timing does not reveal which one (if any) matched.
  let matched = false;
  for (const secret of input.secrets) {
    const expected = Buffer.from(sign(secret, timestamp, input.rawBody), 'hex');
    if (timingSafeEqual(expected, given)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'signature mismatch' };
}
