import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { closePeriod } from '../close/closePeriod.ts';
import { insertJournalExport } from '../close/journalQueries.ts';
import { findChangesBase, periodJournal } from '../close/periodJournal.ts';
import { checkPeriod, servePeriod } from '../close/periodService.ts';
import { createPool } from '../db/pool.ts';
import { JOURNAL_FORMATS, type JournalFormat } from '../domain/ledgerAccounts.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';

export const usage =
  'tally close PERIOD [--journal csv|xero|quickbooks|netsuite [--currency CUR] [--part N] [--changes-since N]] [--out FILE]\n  tally close PERIOD --close [--note TEXT]';

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
  if (period === undefined || positionals.length > 1) throw new Error(`say which period; usage:\n  ${usage}`);
  const format = values.journal;
  if (format !== undefined && !JOURNAL_FORMATS.includes(format as JournalFormat))
    throw new Error(`--journal must be one of ${JOURNAL_FORMATS.join(', ')}, got "${format.slice(0, 20)}"`);
  if (values.close && (format !== undefined || values.out !== undefined))
    throw new Error('--close takes only --note: export the journal after closing');
  const part = values.part === undefined ? undefined : Number(values.part);
  if (part !== undefined && !(Number.isInteger(part) && part >= 1))
    throw new Error(`--part must be a whole number from 1, got "${values.part?.slice(0, 20)}"`);
  const changesSince = values['changes-since'] === undefined ? undefined : Number(values['changes-since']);
  if (changesSince !== undefined && !(Number.isInteger(changesSince) && changesSince >= 1))
    throw new Error(
      `--changes-since must be a version number (1, 2, …), got "${values['changes-since']?.slice(0, 20)}"`,
    );
  if (changesSince !== undefined && format === undefined)
    throw new Error('--changes-since needs --journal FORMAT');
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
    const currency = values.currency?.toLowerCase();
    let text = `${served.reportText}\n`;
    if (format !== undefined) {
      const request = { format: format as JournalFormat, currency, part, changesSince };
      text = periodJournal(served, config, request, await findChangesBase(pool, served, changesSince)).text;
      if (served.status === 'closed')
        await insertJournalExport(pool, {
          period,
          version: served.closed.version,
          format,
          currency: currency ?? null,
          part: format === 'xero' ? (part ?? 1) : null,
          changes_since: changesSince ?? null,
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
