import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { limitLineLength } from './lineLength.ts';
import { MAX_LINE_BYTES, StatementError, type StatementInput } from './statement.ts';

// The records of a BAI2 file (parseBai2.ts reads what they say): physical lines joined with their
// continuations (88), and split into fields.

export type BaiRecord = { code: string; line: number; fields: string[] };

// A record and its continuations (88) count as that many physical records in the trailers' counts.
export const physicalCount = (record: BaiRecord & { continuations?: number }) =>
  1 + (record.continuations ?? 0);

type PendingRecord = BaiRecord & { continuations: number; parts: string[]; length: number };

/**
 * Records with their 88 continuations joined, fields split on commas up to the `/` that ends them. A line,
 * and a record with its continuations, is at most MAX_LINE_BYTES: the pieces are kept apart and joined once.
 */
export async function* logicalRecords(
  input: StatementInput,
): AsyncGenerator<BaiRecord & { continuations: number }> {
  const source = Readable.from(limitLineLength(input));
  try {
    yield* joinContinuations(createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY }));
  } finally {
    // readline lets go of its input without closing it: a file refused half way is closed here.
    source.destroy();
  }
}

async function* joinContinuations(
  lines: AsyncIterable<string>,
): AsyncGenerator<BaiRecord & { continuations: number }> {
  let pending: PendingRecord | null = null;
  let number = 0;
  for await (const physical of lines) {
    number += 1;
    const raw = physical.trimEnd();
    if (raw === '') continue;
    const code = raw.slice(0, 2);
    if (/^\d\d[^,]/.test(raw)) throw new StatementError(number, 'a record code must be followed by a comma');
    if (code === '88') {
      if (!pending) throw new StatementError(number, 'a continuation (88) with nothing to continue');
      pending.length += raw.length;
      if (pending.length > MAX_LINE_BYTES)
        throw new StatementError(
          pending.line,
          `the record with its continuations (88) is longer than ${MAX_LINE_BYTES / 1024} KB`,
        );
      const last = pending.parts.length - 1;
      const previous = pending.parts[last] ?? '';
      if (previous.endsWith('/')) pending.parts[last] = previous.slice(0, -1);
      pending.parts.push(raw.slice(3));
      pending.continuations += 1;
      continue;
    }
    if (pending) yield finish(pending);
    pending = { code, line: number, fields: [], continuations: 0, parts: [raw.slice(3)], length: raw.length };
  }
  if (pending) yield finish(pending);
}

function finish({ code, line, continuations, parts }: PendingRecord): BaiRecord & { continuations: number } {
  const body = parts.join(',');
  // A detail's last field is free text that may hold commas and slashes, and banks differ on ending it with
  // `/`: one final `/` is taken as the terminator. Every other record ends at its first `/`.
  // Its text is kept whole: split, a 64 KB text of commas would be an array of 65,536 fields.
  if (code === '16')
    return {
      code,
      line,
      continuations,
      fields: leadingFields(body.endsWith('/') ? body.slice(0, -1) : body, 3),
    };
  const end = body.indexOf('/');
  return { code, line, continuations, fields: (end >= 0 ? body.slice(0, end) : body).split(',') };
}

/** The first `count` comma-separated fields of `text` and then, as one more, the rest of it unsplit. */
export function leadingFields(text: string, count: number): string[] {
  const fields: string[] = [];
  let start = 0;
  for (
    let comma = text.indexOf(',');
    comma !== -1 && fields.length < count;
    comma = text.indexOf(',', start)
  ) {
    fields.push(text.slice(start, comma));
    start = comma + 1;
  }
  fields.push(text.slice(start));
  return fields;
}
