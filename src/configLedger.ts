import { z } from 'zod';
import { optionalText } from './configFields.ts';
import { ledgerAccountsSetting, ledgerCurrencySetting } from './domain/ledgerAccounts.ts';

/** The settings of the month-end journal (docs/month-end.md): its accounts, currency and importer columns. */
export const ledgerSettings = {
  LEDGER_ACCOUNTS: ledgerAccountsSetting.meta({
    description:
      'Journal accounts by posting kind (`clearing`, `sales`, `processing_fees`, `platform_fees`, `other_fees`, `refunds`, `disputes`, `ach_returns`, `in_transit`, `bank`, `unexplained`), e.g. `{"sales":"4000","clearing.cad":"1151","xero":{"sales":"200"}}`; a key `kind.currency` names the account of that kind in that currency, falling back to the plain kind; an object under a format name (`csv`, `xero`, `quickbooks`, `netsuite`) overrides kinds for that format (its own keys first). Unset kinds post to an account named as the kind.',
  }),
  LEDGER_XERO_TAX_RATE: z.string().min(1).default('Tax Exempt').meta({
    format: 'text',
    description:
      'The `*TaxRate` of every line of a Xero manual journal import (a tax rate name of the Xero organisation).',
  }),
  LEDGER_NETSUITE_SUBSIDIARY: optionalText.meta({
    description:
      'The `Subsidiary` of every line of a NetSuite journal import. Unset: the file has no Subsidiary column.',
  }),
  LEDGER_CURRENCY: ledgerCurrencySetting.meta({
    description:
      "The general ledger's base currency. Xero and QuickBooks book every imported amount in it, so a `xero` or `quickbooks` journal of another currency is refused (422); `csv` and `netsuite` carry each line's currency.",
  }),
};
