import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { FINDING_CODES } from '../../src/findings/findings.ts';

// The codes a table row of docs/findings.md names in its first cell (`payout_failed` / `payout_canceled`
// share one row).
async function documentedCodes(): Promise<string[]> {
  const page = await readFile(new URL('../../docs/findings.md', import.meta.url), 'utf8');
  return page
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) =>
      [...(line.split('|')[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1] as string),
    );
}

describe('the findings page', () => {
  it('documents every finding code the code knows, and no other', async () => {
    expect((await documentedCodes()).sort()).toEqual([...FINDING_CODES].sort());
  });
});
