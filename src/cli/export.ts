import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { RecordedDelivery } from '../ingest/recorded.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../ingest/signature.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { countPurgedForExport, listEventsForExport } from './queries.ts';

/**
 * Writes stored deliveries as recorded-deliveries JSONL, oldest first, one page of rows at a time. Those
 * whose body retention purged are skipped and counted on stderr.
 */
export async function exportDeliveries(args: string[], { config }: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { out: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' } },
  });
  const since = parseDate(values.since, '--since');
  const until = parseDate(values.until, '--until');
  const client = new pg.Client({ connectionString: await resolveDatabaseUrl(config) });
  await client.connect();
  const out: Writable = values.out ? createWriteStream(values.out) : process.stdout;
  let written = 0;
  let skipped = 0;
  try {
    skipped = await countPurgedForExport(client, { since, until });
    let afterId = 0;
    for (;;) {
      const rows = await listEventsForExport(client, { afterId, limit: 1000, since, until });
      for (const row of rows) {
        const line: RecordedDelivery = {
          received_at: row.received_at.toISOString(),
          headers: {
            [TIMESTAMP_HEADER]: row.headers[TIMESTAMP_HEADER] ?? '',
            [SIGNATURE_HEADER]: row.headers[SIGNATURE_HEADER] ?? '',
          },
          body: row.raw_body.toString('utf8'),
        };
        if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
      }
      written += rows.length;
      if (values.out) process.stderr.write(`\rexported ${written} deliveries`);
      const last = rows.at(-1);
      if (!last) break;
      afterId = last.id;
    }
  } finally {
    await client.end();
    if (values.out) {
      out.end();
      await once(out, 'finish');
      process.stderr.write(`\rexported ${written} deliveries to ${values.out}\n`);
    }
  }
  if (skipped > 0)
    process.stderr.write(`skipped ${skipped} deliveries whose body was purged (RAW_BODY_RETENTION_DAYS)\n`);
  return 0;
}

function parseDate(value: string | undefined, flag: string): Date | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new Error(`${flag} must be an ISO date or timestamp, got "${value}"`);
  return date;
}
