import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** A fresh database cloned from the migrated template: each test file gets its own. */
export async function createTestDatabase(template = 'tally_template'): Promise<string> {
  const serverUrl = inject('serverUrl');
  const name = `tally_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  return `${serverUrl}/${name}`;
}
