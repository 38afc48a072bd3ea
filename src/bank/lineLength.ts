import { MAX_LINE_BYTES, StatementError, type StatementInput } from './statement.ts';

const NEWLINE = 0x0a;

/**
 * The file's chunks, unchanged, refused as soon as one line passes `maxBytes`: before a line splitter or the
 * CSV parser buffers it, however long it goes on. Each byte is looked at once (by indexOf).
 */
export async function* limitLineLength(
  input: StatementInput,
  maxBytes: number = MAX_LINE_BYTES,
): StatementInput {
  let line = 1;
  let length = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      if (length + end - start > maxBytes) throw tooLong(line, maxBytes);
      line += 1;
      length = 0;
      start = end + 1;
    }
    length += bytes.length - start;
    if (length > maxBytes) throw tooLong(line, maxBytes);
    yield chunk;
  }
}

const tooLong = (line: number, maxBytes: number) =>
  new StatementError(line, `the line is longer than ${maxBytes / 1024} KB`);
