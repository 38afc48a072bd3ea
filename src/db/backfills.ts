import type { Backfill } from './backfill.ts';

/**
 * The backfills `release` runs, in order, after the migrations. A backfill ships in the release whose
 * migration added the columns it fills, and the code of that release already writes them for new rows
 * (docs/operations.md, "Upgrading and migrations"). A finished backfill stays listed: it is skipped.
 */
export const BACKFILLS: readonly Backfill[] = [];
