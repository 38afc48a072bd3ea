import { readFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import type { Queryable } from '../../src/db/pool.ts';
import { API_TOKEN, type TestApp } from '../helpers/app.ts';

export const READ_TOKEN = 'finance-read-token-0123456789';
export const BANK_ENV = { API_TOKENS: `finance:read:${READ_TOKEN}` };

export const fixture = (file: string) =>
  readFile(path.join(import.meta.dirname, '..', 'fixtures', 'generated', 'bank', file));

/** POST /api/bank-statements with the file raw, as a bank exported it. */
export function postStatement(
  t: TestApp,
  format: string | null,
  body: string | Buffer,
  options: { token?: string; contentType?: string } = {},
) {
  return request(t.app)
    .post(`/api/bank-statements${format === null ? '' : `?format=${format}`}`)
    .set('authorization', `Bearer ${options.token ?? API_TOKEN}`)
    .set('content-type', options.contentType ?? 'text/plain')
    .send(Buffer.from(body));
}

/** A payout as the projection stores it; only what rule 5 reads is given. */
export async function insertPayout(
  db: Queryable,
  payout: { id: string; amount: number; deposits_at: string; currency?: string; status?: string },
) {
  await db.query(
    `insert into payouts (id, account_id, amount, currency, status, deposits_at, event_row_id, projected_at)
     values ($1, 'acc_bank', $2, $3, $4, $5, 0, now())`,
    [payout.id, payout.amount, payout.currency ?? 'usd', payout.status ?? 'paid', payout.deposits_at],
  );
}

export async function clearBank(db: Queryable) {
  await db.query('truncate bank_lines, bank_statements, payouts');
  await db.query('delete from finding_history');
  await db.query('delete from findings');
}

export async function bankFindings(db: Queryable) {
  const { rows } = await db.query(
    `select code, severity, status, subject_type, subject_id, account_id, currency, expected, actual,
            details->'amount' as amount
       from findings where scope = 'bank-matching' order by code, subject_id, id`,
  );
  return rows;
}

/** CSV lines (date, amount in dollars text, description, reference), USD. */
export const csvStatement = (lines: [string, string, string, string][]) =>
  `Date,Amount,Currency,Description,Reference\n${lines
    .map(([date, amount, description, reference]) => `${date},"${amount}",USD,${description},${reference}\n`)
    .join('')}`;
