import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_COLUMNS } from '../../src/projection/checkouts/checkoutQueries.ts';
import type { SqlType } from '../../src/projection/columnTypes.ts';
import { DISPUTE_COLUMNS } from '../../src/projection/disputes/disputeQueries.ts';
import {
  FORWARDING_OUTCOME_COLUMNS,
  FORWARDING_REQUEST_COLUMNS,
} from '../../src/projection/forwarding/forwardingQueries.ts';
import { PAYMENT_COLUMNS, PAYMENT_FEE_COLUMNS } from '../../src/projection/payments/paymentQueries.ts';
import { PAYOUT_COLUMNS, PAYOUT_LINE_COLUMNS } from '../../src/projection/payouts/payoutQueries.ts';
import { REFUND_COLUMNS, RETURNED_FEE_COLUMNS } from '../../src/projection/refunds/refundQueries.ts';
import { createTestDatabase } from '../helpers/database.ts';

// Each write row's column map (the one its insert and upsert SQL are built from), by the table it writes.
const WRITE_COLUMNS: Record<string, Readonly<Record<string, SqlType>>> = {
  payments: PAYMENT_COLUMNS,
  payment_fees: PAYMENT_FEE_COLUMNS,
  refunds: REFUND_COLUMNS,
  returned_fees: RETURNED_FEE_COLUMNS,
  checkouts: CHECKOUT_COLUMNS,
  disputes: DISPUTE_COLUMNS,
  forwarding_requests: FORWARDING_REQUEST_COLUMNS,
  forwarding_outcomes: FORWARDING_OUTCOME_COLUMNS,
  payouts: PAYOUT_COLUMNS,
  payout_lines: PAYOUT_LINE_COLUMNS,
};

// The `data_type` information_schema gives for each type a map may declare.
const SCHEMA_TYPE: Record<SqlType, string> = {
  text: 'text',
  date: 'date',
  bigint: 'bigint',
  integer: 'integer',
  boolean: 'boolean',
  timestamptz: 'timestamp with time zone',
  jsonb: 'jsonb',
};

type SchemaColumn = { table: string; column: string; type: string; nullable: boolean; filled: boolean };

let client: pg.Client;
let schema: SchemaColumn[];

beforeAll(async () => {
  client = new pg.Client({ connectionString: await createTestDatabase() });
  await client.connect();
  const { rows } = await client.query<SchemaColumn>(
    `select table_name as table, column_name as column, data_type as type, is_nullable = 'YES' as nullable,
            (column_default is not null or is_identity = 'YES' or is_generated = 'ALWAYS') as filled
       from information_schema.columns
      where table_schema = 'public' and table_name = any($1::text[])`,
    [Object.keys(WRITE_COLUMNS)],
  );
  schema = rows;
});

afterAll(async () => {
  await client?.end();
});

describe.each(Object.entries(WRITE_COLUMNS))('the write row of %s', (table, columns) => {
  const ofTable = () => schema.filter((column) => column.table === table);

  it('names only columns the migrated table has, each with its SQL type', () => {
    const actual = Object.fromEntries(ofTable().map((column) => [column.column, column.type]));
    const declared = Object.entries(columns).map(([column, type]) => ({
      column,
      declared: SCHEMA_TYPE[type],
      actual: actual[column] ?? 'no such column',
    }));
    expect(declared.filter((column) => column.actual !== column.declared)).toEqual([]);
    expect(ofTable().length).toBeGreaterThan(0);
  });

  it('leaves out only columns the database fills or lets be null', () => {
    const unwritable = ofTable().filter(
      (column) => !(column.column in columns) && !column.nullable && !column.filled,
    );
    expect(unwritable.map((column) => column.column)).toEqual([]);
  });
});
