/**
 * The feed's cursors: opaque strings naming a position (`seq`), after which a read continues. Position 0 is
 * before the first change ever numbered.
 */
const PREFIX = 'seq:';

export function encodeChangeCursor(seq: number): string {
  return Buffer.from(`${PREFIX}${seq}`).toString('base64url');
}

/** The position of a cursor the feed returned, or null; re-encoding must give the same text, so no aliases. */
export function decodeChangeCursor(value: string): number | null {
  const match = /^seq:(0|[1-9]\d{0,15})$/.exec(Buffer.from(value, 'base64url').toString());
  const seq = match?.[1] === undefined ? Number.NaN : Number(match[1]);
  return Number.isSafeInteger(seq) && encodeChangeCursor(seq) === value ? seq : null;
}
