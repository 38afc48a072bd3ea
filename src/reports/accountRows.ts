/** What a daily report's per-account tables are keyed by: test and live, and currencies, never mixed. */
export type AccountKey = { account_type: string; account_id: string; currency: string };

const idOf = (key: AccountKey) => `${key.account_type}\u0000${key.account_id}\u0000${key.currency}`;
const orderOf = (key: AccountKey) => `${key.account_type}\u0000${key.currency}\u0000${key.account_id}`;

/**
 * Rows of a per-account table, one per (account type, account, currency): `rowFor` finds the key's row or
 * starts it from `blank`; `sorted` lists them by account type, currency, then account.
 */
export function rowsPerAccount<Row extends AccountKey>(blank: (key: AccountKey) => Row) {
  const rows = new Map<string, Row>();
  return {
    rowFor(key: AccountKey): Row {
      const id = idOf(key);
      let row = rows.get(id);
      if (!row) {
        row = blank({ account_type: key.account_type, account_id: key.account_id, currency: key.currency });
        rows.set(id, row);
      }
      return row;
    },
    sorted(): Row[] {
      return [...rows.values()].sort((a, b) => orderOf(a).localeCompare(orderOf(b)));
    },
  };
}
