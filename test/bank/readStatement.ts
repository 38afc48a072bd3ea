import { Readable } from 'node:stream';
import { parseStatement } from '../../src/bank/parseStatement.ts';
import type { StatementFormat, StatementItem } from '../../src/bank/statement.ts';

// Split into small chunks, so every parser is seen reading across chunk boundaries.
export async function read(
  format: StatementFormat,
  text: string | Buffer,
  chunkSize = 7,
): Promise<StatementItem[]> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(bytes.subarray(at, at + chunkSize));
  const items: StatementItem[] = [];
  for await (const item of parseStatement(format, Readable.from(chunks))) items.push(item);
  return items;
}
export const linesOf = (items: StatementItem[]) =>
  items.flatMap((item) => (item.kind === 'line' ? [{ ...item, line: undefined }] : []));
export const failure = (format: StatementFormat, text: string) =>
  read(format, text).then(
    () => 'parsed',
    (err: Error) => err.message,
  );
