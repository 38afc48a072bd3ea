// node bench/bankImport.ts [MEGABYTES]: a generated CSV bank statement of 50 MB (default) imported twice
// through the import the API and the CLI use (streamed from disk), on an embedded Postgres. Prints the time
// and this process's peak RSS for each import, next to the RSS before it: the file is streamed, so the peak
// stays far below the file's size; the second import adds nothing.
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importStatement } from '../src/bank/importStatement.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { countArgument, endPool, sampleRss, timed } from './measure.ts';

const MEGABYTES = countArgument('MEGABYTES', 50);
const log = createLogger('warn');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function writeStatement(file: string): Promise<number> {
  const out = createWriteStream(file);
  out.write('Value Date,Description,Reference,Amount,Currency\n');
  let lines = 0;
  while (out.bytesWritten + out.writableLength < MEGABYTES * 1024 * 1024) {
    lines += 1;
    const day = `2026-${String(1 + (lines % 12)).padStart(2, '0')}-${String(1 + (lines % 28)).padStart(2, '0')}`;
    const cents = (lines * 7919) % 10_000_000;
    const amount = `${lines % 5 === 0 ? '-' : ''}${Math.trunc(cents / 100).toLocaleString('en-US')}.${String(cents % 100).padStart(2, '0')}`;
    // One line in a hundred is a provider payout (no payout exists here: each is a finding); the rest card
    // settlements, transfers and fees of a busy account.
    const description =
      lines % 100 === 0 ? `JUSTIFI PAYOUT po_${lines}` : `CARD SETTLEMENT BATCH ${lines} STORE 0042`;
    const line = `${day},"${description} transfer to operating account",REF${lines},"${amount}",USD\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return lines;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-bank-'));
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(dataDir, log);
try {
  await release(database.connectionString, log);
  const file = path.join(dataDir, 'statement.csv');
  const [lines] = await timed('generate the statement', () => writeStatement(file));
  process.stderr.write(`statement: ${mb((await stat(file)).size)}, ${lines} lines\n`);
  const pool = createPool(database.connectionString, log, 2);
  const config = { BANK_MATCH_DAYS: 3, BANK_PROVIDER_PATTERN: 'JUSTIFI' };
  for (const run of ['first import', 're-import']) {
    global.gc?.();
    const rss = sampleRss();
    const before = process.memoryUsage().rss;
    const [result] = await timed(run, () =>
      importStatement(pool, createReadStream(file), {
        format: 'csv',
        importedBy: 'bench',
        now: new Date(),
        config,
      }),
    );
    rss.stop();
    process.stderr.write(
      `${run}: ${JSON.stringify(result)}; RSS before ${mb(before)}, peak ${mb(rss.peak())}\n`,
    );
  }
  await endPool(pool);
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
