import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { closePeriod } from '../close/closePeriod.ts';
import { insertJournalExport } from '../close/journalQueries.ts';
import {
  findChangesBase,
  type JournalRequest,
  journalRequestSchema,
  partOf,
  periodJournal,
} from '../close/periodJournal.ts';
import { checkPeriod, servePeriod } from '../close/periodService.ts';
import { createPool } from '../db/pool.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { usages } from './usages.ts';

/**
 * A period's close report (JSON) or its journal in one format, printed or written to a file: a closed period's
 * stored version, an open one's as Tally now says. With `--close`, closes it as the API does (the same rules),
 * as `cli:<user>`. Progress goes to stderr, so stdout carries only the file.
 */
export async function closeCommand(args: string[], { config, log }: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      journal: { type: 'string' },
      currency: { type: 'string' },
      part: { type: 'string' },
      'changes-since': { type: 'string' },
      out: { type: 'string' },
      close: { type: 'boolean', default: false },
      note: { type: 'string' },
    },
  });
  const period = positionals[0];
  if (period === undefined || positionals.length > 1)
    throw new Error(`say which period; usage:\n  ${usages.close}`);
  if (values.close && (values.journal !== undefined || values.out !== undefined))
    throw new Error('--close takes only --note: export the journal after closing');
  const journal = journalRequestOf(values);
  const step = (message: string) => process.stderr.write(`${message}\n`);
  const pool = createPool(await resolveDatabaseUrl(config), log, 4);
  try {
    const now = new Date();
    await checkPeriod(pool, period, config, now);
    if (values.close) {
      step(`closing ${period}: checking the rules and building its report and journal…`);
      const actor = `cli:${userInfo().username}`;
      const version = await closePeriod(pool, config, { period, actor, note: values.note ?? null, now });
      step(`closed ${period} as version ${version} by ${actor}`);
      return 0;
    }
    step(`building the close report of ${period}…`);
    const served = await servePeriod(pool, period, config, now);
    step(
      served.status === 'closed'
        ? `${period} is closed: version ${served.closed.version} as stored on ${served.closed.closed_at.toISOString()}`
        : `${period} is open: the numbers as Tally has them now`,
    );
    let text = `${served.reportText}\n`;
    if (journal !== undefined) {
      const since = await findChangesBase(pool, served, journal.changes_since);
      text = periodJournal(served, config, journal, since).text;
      if (served.status === 'closed')
        await insertJournalExport(pool, {
          period,
          version: served.closed.version,
          format: journal.format,
          currency: journal.currency ?? null,
          part: partOf(journal),
          changes_since: journal.changes_since ?? null,
          actor: `cli:${userInfo().username}`,
          created_at: now,
        });
    }
    if (values.out === undefined) process.stdout.write(text);
    else {
      await writeFile(values.out, text);
      step(`written to ${values.out}`);
    }
    return 0;
  } finally {
    await pool.end();
  }
}

// The journal's options by the names the API's query gives them, so both edges parse with one schema.
const FLAGS = {
  format: 'journal',
  currency: 'currency',
  part: 'part',
  changes_since: 'changes-since',
} as const satisfies Record<keyof JournalRequest, string>;

/**
 * The journal the options ask for (none without `--journal`), checked by the schema the API checks its query
 * with: a refusal says the API's words after the option's name, and the value given.
 */
function journalRequestOf(values: Partial<Record<string, unknown>>): JournalRequest | undefined {
  const given = Object.fromEntries(
    Object.entries(FLAGS).flatMap(([name, flag]) =>
      values[flag] === undefined ? [] : [[name, values[flag]]],
    ),
  );
  if (values.journal === undefined) {
    const needing = Object.values(FLAGS).find((flag) => values[flag] !== undefined);
    if (needing !== undefined) throw new Error(`--${needing} needs --journal FORMAT`);
    return undefined;
  }
  const parsed = journalRequestSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0]) as keyof JournalRequest;
  throw new Error(`--${FLAGS[name]} ${issue?.message}, got "${String(given[name]).slice(0, 20)}"`);
}
