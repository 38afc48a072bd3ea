import { Worker } from 'node:worker_threads';
import { PARSE_BUDGET_MS, StatementError, type StatementFormat, type StatementItem } from './statement.ts';

/** One file for the worker thread to read: the spooled file, read by the worker itself. */
export type ParseJob = { file: string; format: StatementFormat; batchItems: number };

/** What the main thread posts: a file to read, or the go-ahead for the next batch. */
export type MainMessage = { type: 'job'; job: ParseJob } | { type: 'next' };

/** What the worker thread posts back; after `items` it waits for `next`. */
export type WorkerMessage =
  | { type: 'items'; items: StatementItem[]; bytesRead: number }
  | { type: 'done'; sha256: string; bytesRead: number }
  | { type: 'refused'; line: number | null; problem: string };

export type ParseFileOptions = {
  /** Receives the file's lines and periods in order, in batches; the next is read once this resolves. */
  onItems: (items: StatementItem[], bytesRead: number) => Promise<void>;
  /** The time reading may take, waits for `onItems` excluded. */
  budgetMs?: number;
  batchItems?: number;
};

// Far above what the parsers hold (a line, a batch): a file that makes them grow past it is refused instead of
// taking the process's memory.
const WORKER_HEAP_MB = 256;

// A thread that finished its last file waits for the next one: starting a thread and loading the parsers
// costs about a tenth of a second, more than reading a small statement.
let idle: Worker | null = null;

function takeWorker(): Worker {
  const worker =
    idle ??
    new Worker(new URL('./parseStatementWorker.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
  idle = null;
  worker.removeAllListeners();
  worker.ref();
  return worker;
}

function keepIdle(worker: Worker) {
  worker.removeAllListeners();
  if (idle) {
    void worker.terminate();
    return;
  }
  idle = worker;
  // An idle thread never keeps the process (the CLI) from exiting.
  worker.unref();
  const forget = () => {
    if (idle === worker) idle = null;
  };
  worker.on('error', forget);
  worker.on('exit', forget);
}

/**
 * Reads a statement file on a worker thread, so no file can hold the event loop that acknowledges webhooks.
 * Past its time budget the worker is terminated and the file refused with a StatementError, as is a file
 * the parser refuses. Resolves to the file's sha256.
 */
export function parseStatementFile(
  file: string,
  format: StatementFormat,
  options: ParseFileOptions,
): Promise<Buffer> {
  const budgetMs = options.budgetMs ?? PARSE_BUDGET_MS;
  const worker = takeWorker();
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    let spent = 0;
    let since = performance.now();
    let timer: NodeJS.Timeout | undefined;
    // A thread whose file was read or refused reads the next one; any other ending is the end of it.
    const settle = (outcome: { sha256: Buffer } | { refused: StatementError } | { failed: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if ('failed' in outcome) void worker.terminate();
      else keepIdle(worker);
      if ('sha256' in outcome) resolve(outcome.sha256);
      else reject('refused' in outcome ? outcome.refused : outcome.failed);
    };
    const overBudget = () =>
      settle({
        failed: new StatementError(
          null,
          `reading the file took longer than ${budgetMs / 1000} s, the most one statement may take: split it into smaller files`,
        ),
      });
    // The clock runs only while the worker reads, not while the database stores a batch.
    const read = (message: MainMessage) => {
      since = performance.now();
      timer = setTimeout(overBudget, Math.max(0, budgetMs - spent));
      worker.postMessage(message);
    };
    worker.on('message', (message: WorkerMessage) => {
      clearTimeout(timer);
      spent += performance.now() - since;
      if (settled) return;
      if (message.type === 'items') {
        options.onItems(message.items, message.bytesRead).then(
          () => {
            if (!settled) read({ type: 'next' });
          },
          (err: unknown) => settle({ failed: err }),
        );
      } else if (message.type === 'done') settle({ sha256: Buffer.from(message.sha256, 'hex') });
      else settle({ refused: new StatementError(message.line, message.problem) });
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const tooBig = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle({
        failed: tooBig
          ? new StatementError(null, 'reading the file needs more memory than one statement may use')
          : err,
      });
    });
    worker.on('exit', (code) =>
      settle({ failed: new Error(`the statement reader stopped (exit code ${code})`) }),
    );
    read({ type: 'job', job: { file, format, batchItems: options.batchItems ?? 5_000 } });
  });
}
