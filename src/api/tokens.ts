import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';

/** `admin` changes, `read` reads `/api/*` and the console, `metrics` reads `GET /metrics` and nothing else. */
export type Role = 'admin' | 'read' | 'metrics';
/** Who is calling: the token's name (the actor on finding history) and what it may do. */
export type Principal = { name: string; role: Role };

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The configured tokens, hashed; `find` answers who a presented token belongs to. */
export type ApiTokens = {
  /** False when neither API_TOKEN nor API_TOKENS is set: the API and the console are off. */
  readonly configured: boolean;
  find(token: string): Principal | null;
  /**
   * A fingerprint of a token (its HMAC under the session secret), kept in a console session instead of the
   * token itself: nothing stored in a session leads back to a token or to the secret that signs the cookies.
   */
  fingerprint(token: string): string;
  /**
   * The console's cookie-signing secret, derived from every configured token: every web process agrees on it,
   * and changing the tokens signs everyone out.
   */
  readonly sessionSecret: string;
  /** The principal a session's fingerprint still stands for, or null once that token is gone from the config. */
  findByFingerprint(fingerprint: string): Principal | null;
};

export function apiTokensFrom(config: Pick<Config, 'API_TOKEN' | 'API_TOKENS'>): ApiTokens {
  const configured = [
    ...(config.API_TOKEN ? [{ name: 'admin', role: 'admin' as const, token: config.API_TOKEN }] : []),
    ...(config.API_TOKENS ?? []),
  ];
  // Keyed by the raw tokens, never by anything a session row holds.
  const sessionSecret = createHmac('sha256', configured.map((entry) => entry.token).join('\u0000'))
    .update('tally console session')
    .digest('hex');
  const fingerprintOf = (token: string) => createHmac('sha256', sessionSecret).update(token).digest();
  const entries = configured.map((entry) => ({
    principal: { name: entry.name, role: entry.role },
    digest: digest(entry.token),
    fingerprint: fingerprintOf(entry.token),
  }));
  // Equal-length buffers on both sides; every entry is compared, so the time does not say which matched.
  const match = (candidate: Buffer, key: 'digest' | 'fingerprint') => {
    let found: Principal | null = null;
    for (const entry of entries) {
      if (timingSafeEqual(candidate, entry[key]) && found === null) found = entry.principal;
    }
    return found;
  };
  return {
    configured: entries.length > 0,
    sessionSecret,
    find: (token) => match(digest(token), 'digest'),
    fingerprint: (token) => fingerprintOf(token).toString('base64url'),
    findByFingerprint: (fingerprint) => {
      const candidate = Buffer.from(fingerprint, 'base64url');
      return candidate.length === 32 ? match(candidate, 'fingerprint') : null;
    },
  };
}
