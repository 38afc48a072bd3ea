import { z } from 'zod';
import { LEDGER_KINDS, type LedgerKind } from './movementKinds.ts';

export const JOURNAL_FORMATS = ['csv', 'xero', 'quickbooks', 'netsuite'] as const;
export type JournalFormat = (typeof JOURNAL_FORMATS)[number];

// ISO 4217 codes as the runtime's Intl knows them (lower case, as Tally stores currencies).
const ISO_CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((code) => code.toLowerCase()));

/** `LEDGER_CURRENCY`: the general ledger's base currency, an ISO 4217 code, stored lower case. */
export const ledgerCurrencySetting = z
  .string()
  .default('usd')
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => ISO_CURRENCIES.has(value), 'is not an ISO 4217 currency code (e.g. usd, cad, eur)')
  .meta({ format: 'ISO 4217 currency code' });

// A kind, or a kind and a currency: `clearing`, `clearing.cad`.
const ACCOUNT_KEY = /^([^.]*)(?:\.([A-Za-z]{3}))?$/;
const KINDS: readonly string[] = LEDGER_KINDS;

/** Account names by kind or kind and currency; a key of an unknown kind is refused by name. */
const accountNames = z
  .record(z.string(), z.string().min(1))
  .superRefine((names, context) => {
    for (const key of Object.keys(names)) {
      const match = ACCOUNT_KEY.exec(key);
      if (match && KINDS.includes(match[1] as string)) continue;
      context.addIssue({
        code: 'custom',
        path: [key],
        message: match?.[2]
          ? `is a per-currency key for an unknown kind (kinds: ${LEDGER_KINDS.join(', ')})`
          : `is not a kind or kind.currency (kinds: ${LEDGER_KINDS.join(', ')})`,
      });
    }
  })
  .transform((names) =>
    Object.fromEntries(Object.entries(names).map(([key, name]) => [key.toLowerCase(), name])),
  );

export type AccountNames = Record<string, string>;
export type LedgerAccounts = { [key: string]: string | AccountNames | undefined } & {
  [format in JournalFormat]?: AccountNames;
};

/**
 * `LEDGER_ACCOUNTS`: posting kind (or `kind.currency`) → account code or name, with optional per-format
 * objects of the same (`{"sales": "4000", "clearing.cad": "1151", "xero": {"sales": "200"}}`). A key of a kind
 * not in LEDGER_KINDS is refused by name.
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
    z.looseObject(
      Object.fromEntries(JOURNAL_FORMATS.map((format) => [format, accountNames.optional()])) as Record<
        JournalFormat,
        z.ZodOptional<typeof accountNames>
      >,
    ),
  )
  .transform((value, context): LedgerAccounts => {
    const formats = new Set<string>(JOURNAL_FORMATS);
    const general = Object.fromEntries(Object.entries(value).filter(([key]) => !formats.has(key)));
    const parsed = accountNames.safeParse(general);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
      return z.NEVER;
    }
    const overrides = Object.fromEntries(Object.entries(value).filter(([key]) => formats.has(key)));
    return { ...parsed.data, ...(overrides as Partial<Record<JournalFormat, AccountNames>>) };
  })
  .meta({
    format: 'JSON object of account names by kind or kind.currency, with optional per-format objects',
  });

/**
 * The account a kind posts to in a format and currency: the format's override for the kind in that currency,
 * then for the kind; the general mapping for the kind in that currency, then for the kind; else the kind's name.
 * The format comes first because a format's names are in its own vocabulary (Xero wants codes).
 */
export function accountFor(
  accounts: LedgerAccounts,
  format: JournalFormat,
  kind: LedgerKind,
  currency: string,
): string {
  const general = accounts as Record<string, string | undefined>;
  const override = accounts[format];
  return (
    override?.[`${kind}.${currency}`] ??
    override?.[kind] ??
    general[`${kind}.${currency}`] ??
    general[kind] ??
    kind
  );
}
