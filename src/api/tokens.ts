import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';

export type Role = 'admin' | 'read';
/** Who is calling: the token's name (the actor on finding history) and what it may do. */
export type Principal = { name: string; role: Role };

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The configured tokens, hashed; `find` answers who a presented token belongs to. */
export type ApiTokens = {
  /** False when neither API_TOKEN nor API_TOKENS is set: the API and the console are off. */
  readonly configured: boolean;
  find(token: string): Principal | null;
  /** A short fingerprint of a token (its hash), kept in a console session instead of the token itself. */
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
  const entries = [
    ...(config.API_TOKEN ? [{ name: 'admin', role: 'admin' as const, token: config.API_TOKEN }] : []),
    ...(config.API_TOKENS ?? []),
  ].map((entry) => ({ name: entry.name, role: entry.role, digest: digest(entry.token) }));
  // Hashing both sides gives equal-length buffers; every entry is compared, so the time does not say which matched.
  const matchDigest = (candidate: Buffer) => {
    let found: Principal | null = null;
    for (const entry of entries) {
      if (timingSafeEqual(candidate, entry.digest) && found === null)
        found = { name: entry.name, role: entry.role };
    }
    return found;
  };
  return {
    configured: entries.length > 0,
    sessionSecret: createHash('sha256')
      .update('tally console session')
      .update(Buffer.concat(entries.map((entry) => entry.digest)))
      .digest('hex'),
    find: (token) => matchDigest(digest(token)),
    fingerprint: (token) => digest(token).toString('base64url'),
    findByFingerprint: (fingerprint) => {
      const candidate = Buffer.from(fingerprint, 'base64url');
      return candidate.length === 32 ? matchDigest(candidate) : null;
    },
  };
}
