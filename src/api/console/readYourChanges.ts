import type { RequestHandler } from 'express';
import type { Reads } from '../../db/readPool.ts';
import { readPrimaryWalPosition } from '../../db/replicaLag.ts';

declare module 'express-session' {
  interface SessionData {
    /** A form of this session changed something; the next page learns how far the primary had written. */
    changed?: boolean;
    /** The primary's WAL position after the change (decimal): pages read the primary until the replica is past it. */
    readsAfter?: string;
  }
}

/**
 * A person who acknowledges a finding is sent back to its page: read from a replica a moment behind, it would
 * still show the finding open. After a change, this session's pages read the primary until the lag check has
 * seen the replica replay past the primary's WAL position at the first page after it (the change committed
 * before that page was asked for). Other sessions read the replica throughout. Without a replica it does nothing.
 */
export function readYourChanges(reads: Reads): RequestHandler {
  return async (req, _res, next) => {
    if (reads.replica === null) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.session.changed = true;
      return next();
    }
    if (req.session.changed) {
      req.session.readsAfter = String(await readPrimaryWalPosition(reads.primary));
      delete req.session.changed;
    }
    const after = req.session.readsAfter;
    if (after !== undefined && !reads.hasReplayed(BigInt(after))) return reads.onPrimary(next);
    if (after !== undefined) delete req.session.readsAfter;
    next();
  };
}
