/**
 * Splits a migration's SQL into its statements, for a migration that runs outside a transaction: Postgres
 * runs a string of several statements as one implicit transaction, where `CREATE INDEX CONCURRENTLY` is
 * refused, so each must be sent on its own. Semicolons inside quotes, quoted identifiers, dollar-quoted
 * bodies and comments do not end a statement. Each statement starts at its first word, past the comments
 * before it; a piece holding only comments is not a statement.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false;
  let i = 0;
  while (i < sql.length) {
    const char = sql[i];
    const next = sql[i + 1];
    if (char === '-' && next === '-') {
      i = endOf(sql, '\n', i + 2);
    } else if (char === '/' && next === '*') {
      i = endOf(sql, '*/', i + 2);
    } else if (char === "'" || char === '"') {
      if (!hasCode) start = i;
      hasCode = true;
      i = endOfQuoted(sql, char, i + 1);
    } else if (char === '$' && /^\$[A-Za-z_]*\$/.test(sql.slice(i))) {
      if (!hasCode) start = i;
      hasCode = true;
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0] ?? '$$';
      i = endOf(sql, tag, i + tag.length);
    } else if (char === ';') {
      if (hasCode) statements.push(sql.slice(start, i).trim());
      start = i + 1;
      hasCode = false;
      i += 1;
    } else {
      if (!hasCode && char !== undefined && /\S/.test(char)) {
        start = i;
        hasCode = true;
      }
      i += 1;
    }
  }
  if (hasCode) statements.push(sql.slice(start).trim());
  return statements;
}

// The index just past `terminator` (or the end of the text when it never comes).
function endOf(sql: string, terminator: string, from: number): number {
  const at = sql.indexOf(terminator, from);
  return at === -1 ? sql.length : at + terminator.length;
}

// A doubled quote inside a quoted string or identifier is the quote itself, not its end.
function endOfQuoted(sql: string, quote: string, from: number): number {
  let i = from;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] !== quote) return i + 1;
      i += 2;
    } else {
      i += 1;
    }
  }
  return sql.length;
}
