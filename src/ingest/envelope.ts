import { z } from 'zod';
import { describeIssues } from '../zodIssues.ts';

/** The delivery envelope; unknown extra fields are kept. `data` is checked per event family later. */
export const envelopeSchema = z.looseObject({
  id: z.string().min(1).max(255),
  event_name: z.string().min(1).max(255),
  account_id: z.string().min(1).max(255),
  account_type: z.enum(['test', 'live']),
  platform_account_id: z.string().nullish(),
  idempotency_key: z.string().nullish(),
  request_id: z.string().nullish(),
  version: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export type Envelope = z.infer<typeof envelopeSchema>;

/** How deep a delivery's body may nest; a deeper one is quarantined, and never walked any further. */
export const MAX_DEPTH = 64;

export type ParsedEnvelope =
  | { ok: true; envelope: Envelope }
  | { ok: false; reason: string; id: string | null };

/** Validates a parsed JSON body; a failure names the first problems so the quarantine is explainable. */
export function parseEnvelope(body: unknown, rawText: string): ParsedEnvelope {
  const id = candidateId(body);
  if (isNestedTooDeep(body)) return { ok: false, reason: `nested deeper than ${MAX_DEPTH} levels`, id };
  // Postgres jsonb cannot hold NUL characters or unpaired surrogates (JSON.stringify escapes only those).
  // In valid UTF-8 JSON both can only be written as \u escapes, so most bodies skip the re-serialization.
  if (rawText.includes('\\u') && /\\u0000|\\ud[89a-f][0-9a-f]{2}/i.test(JSON.stringify(body))) {
    return { ok: false, reason: 'contains a NUL character or an unpaired surrogate', id };
  }
  const result = envelopeSchema.safeParse(body);
  if (result.success) return { ok: true, envelope: result.data };
  return { ok: false, reason: describeIssues(result.error, 'body'), id };
}

function candidateId(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('id' in body)) return null;
  return typeof body.id === 'string' && body.id.length <= 255 ? body.id : null;
}

/** Whether a parsed JSON value nests deeper than `MAX_DEPTH`; the walk stops one level below it. */
export const isNestedTooDeep = (value: unknown) => depthOf(value, 0) > MAX_DEPTH;

function depthOf(value: unknown, depth: number): number {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return depth;
  let deepest = depth;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, depth + 1));
  return deepest;
}
