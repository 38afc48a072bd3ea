import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { parseStatement } from './parseStatement.ts';
import type { MainMessage, ParseJob, WorkerMessage } from './parseStatementFile.ts';
import { StatementError, type StatementInput, type StatementItem } from './statement.ts';

// The worker thread that reads statement files, one at a time (parseStatementFile.ts starts it): whatever a file
// makes the parser do happens here, never on the thread that answers webhooks.

const NEWLINE = 0x0a;

/**
 * The file's bytes pass through the hash on their way to the parser: read once, never held whole. Postgres
 * text cannot hold a NUL byte, and no bank statement format has one: a file with one is refused here, naming
 * its line, whichever field (an account, a description) it would have landed in.
 */
async function* hashing(input: StatementInput, hash: Hash): StatementInput {
  let line = 1;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const nul = bytes.indexOf(0);
    const end = nul === -1 ? bytes.length : nul;
    for (let at = bytes.indexOf(NEWLINE); at !== -1 && at < end; at = bytes.indexOf(NEWLINE, at + 1))
      line += 1;
    if (nul !== -1) throw new StatementError(line, 'the line contains a NUL character');
    hash.update(chunk);
    yield chunk;
  }
}

async function readStatementFile(job: ParseJob, send: (message: WorkerMessage) => Promise<void>) {
  const hash = createHash('sha256');
  const file = createReadStream(job.file);
  try {
    let batch: StatementItem[] = [];
    for await (const item of parseStatement(job.format, hashing(file, hash))) {
      batch.push(item);
      if (batch.length >= job.batchItems) {
        await send({ type: 'items', items: batch, bytesRead: file.bytesRead });
        batch = [];
      }
    }
    if (batch.length > 0) await send({ type: 'items', items: batch, bytesRead: file.bytesRead });
    await send({ type: 'done', sha256: hash.digest('hex'), bytesRead: file.bytesRead });
  } finally {
    // The thread reads the next file after this one: a file given up on half way is closed all the same.
    file.destroy();
  }
}

const port = parentPort;
if (!port) throw new Error('parseStatementWorker.ts runs as a worker thread (see parseStatementFile.ts)');
// One batch at a time: the next is read once the main thread has stored this one, so a big file never piles
// up in memory faster than the database takes it.
let readNext: (() => void) | null = null;
const send = (message: WorkerMessage) => {
  port.postMessage(message);
  if (message.type !== 'items') return Promise.resolve();
  return new Promise<void>((resolve) => {
    readNext = resolve;
  });
};
port.on('message', (message: MainMessage) => {
  if (message.type === 'next') {
    readNext?.();
    readNext = null;
    return;
  }
  readStatementFile(message.job, send).catch((err: unknown) => {
    // Anything but a refusal of the file ends the thread with an error event in the main thread.
    if (!(err instanceof StatementError)) throw err;
    port.postMessage({ type: 'refused', line: err.line, problem: err.problem } satisfies WorkerMessage);
  });
});
