import { STATEMENT_FORMATS } from '../bank/statement.ts';
import { JOURNAL_FORMATS } from '../domain/ledgerAccounts.ts';

/**
 * Each command's usage, in the order `tally --help` lists them. They live apart from the commands so the help
 * and a command's own errors read the same text, and printing the help loads none of the commands; the formats
 * come from the lists their stages own.
 */
export const usages = {
  backfill: 'tally backfill --since YYYY-MM-DD [--account acc_…]',
  export: 'tally export [--out FILE] [--since ISO] [--until ISO]',
  replay: 'tally replay FILE... --url URL [--secret SECRET --resign] [--concurrency N]',
  reprocess: 'tally reprocess --all [--allow-purged] | --failed',
  report:
    'tally report daily [--date YYYY-MM-DD] [--format json|csv|html] [--out FILE]\n  tally report fee-configurations [--format json|csv|html] [--out FILE]',
  purge: 'tally purge --older-than DAYS [--dry-run]',
  bank: `tally bank import FILE [--format ${STATEMENT_FORMATS.join('|')}]`,
  close: `tally close PERIOD [--journal ${JOURNAL_FORMATS.join('|')} [--currency CUR] [--part N] [--changes-since N]] [--out FILE]\n  tally close PERIOD --close [--note TEXT]`,
  listen:
    'tally listen --url TALLY_URL --token READ_TOKEN --forward-to LOCAL_URL [--types TYPE,…] [--from now|CURSOR]',
} as const;

export type CommandName = keyof typeof usages;
