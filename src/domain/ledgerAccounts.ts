import { z } from 'zod';
import { LEDGER_KINDS, type LedgerKind } from './movementKinds.ts';

export const JOURNAL_FORMATS = ['csv', 'xero', 'quickbooks', 'netsuite'] as const;
export type JournalFormat = (typeof JOURNAL_FORMATS)[number];

const accountNames = z.strictObject(
  Object.fromEntries(LEDGER_KINDS.map((kind) => [kind, z.string().min(1).optional()])) as Record<
    LedgerKind,
    z.ZodOptional<z.ZodString>
  >,
);

/**
 * `LEDGER_ACCOUNTS`: posting kind → account code or name, with optional per-format objects of the same
 * (`{"sales": "4000", "xero": {"sales": "200"}}`). A kind not in LEDGER_KINDS is refused by name.
 */
export const ledgerAccountsSetting = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value.trim() === '') return {};
    try {
      return JSON.parse(value) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'is not JSON (an object of account names by kind)' });
      return z.NEVER;
    }
  })
  .pipe(
    accountNames.extend(
      Object.fromEntries(JOURNAL_FORMATS.map((format) => [format, accountNames.optional()])) as Record<
        JournalFormat,
        z.ZodOptional<typeof accountNames>
      >,
    ),
  )
  .meta({ format: 'JSON object of account names by kind, with optional per-format objects' });

export type LedgerAccounts = z.output<typeof ledgerAccountsSetting>;

/** The account a kind posts to in a format: the format's override, the general mapping, or the kind's name. */
export function accountFor(accounts: LedgerAccounts, format: JournalFormat, kind: LedgerKind): string {
  return accounts[format]?.[kind] ?? accounts[kind] ?? kind;
}
