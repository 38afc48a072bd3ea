import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../src/db/sqlStatements.ts';

describe('splitStatements', () => {
  it.each([
    ['one statement without a semicolon', 'select 1', ['select 1']],
    [
      'statements in order, each from its first word',
      '-- a\nselect 1;\n/* b; */ select 2;',
      ['select 1', 'select 2'],
    ],
    ['a semicolon in a string', "select 'a;b'; select 2", ["select 'a;b'", 'select 2']],
    ['a doubled quote in a string', "select 'it''s;'; select 2", ["select 'it''s;'", 'select 2']],
    ['a semicolon in a quoted identifier', 'select 1 as "a;b"; select 2', ['select 1 as "a;b"', 'select 2']],
    [
      'a dollar-quoted body',
      'do $body$ begin perform 1; end $body$; select 2',
      ['do $body$ begin perform 1; end $body$', 'select 2'],
    ],
    [
      'a semicolon in a line comment',
      'select 1 -- not; here\n; select 2',
      ['select 1 -- not; here', 'select 2'],
    ],
    ['pieces holding only comments or space', '-- only a comment;\n;  ;\n/* x */', []],
  ])('%s', (_, sql, statements) => {
    expect(splitStatements(sql)).toEqual(statements);
  });
});
