import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/bank/amounts.ts';
import { parseStatement } from '../../src/bank/parseStatement.ts';
import type { StatementFormat } from '../../src/bank/statement.ts';

// Each parser's time grows in proportion to its input: a file (or an amount) built at sizes 1x, 2x and 4x of a
// hostile shape fast-check picks takes at most about twice as long per doubling. A parser quadratic in a
// field's length takes four times as long per doubling and fails; the slack (3) absorbs a noisy machine.
const MAX_RATIO = 3;
const ROUNDS = 7;
const FLOOR_MS = 5;

// Each size's fastest run, the sizes measured in turn round after round: a burst of load from the other
// processes on the machine slows one round of all three, and the fastest runs are the undisturbed ones.
async function expectLinear(build: (scale: number) => () => Promise<unknown> | unknown) {
  const runs = [build(1), build(2), build(4)];
  const fastest = runs.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [size, run] of runs.entries()) {
      const started = performance.now();
      await run();
      fastest[size] = Math.min(fastest[size] ?? Number.POSITIVE_INFINITY, performance.now() - started);
    }
  }
  // Below a few milliseconds a collection of garbage or another process is most of what is measured; a
  // quadratic parser takes far longer than that at these sizes.
  const [one, two, four] = fastest.map((ms) => Math.max(ms, FLOOR_MS)) as [number, number, number];
  expect(two / one, `1x ${one} ms, 2x ${two} ms`).toBeLessThan(MAX_RATIO);
  expect(four / two, `2x ${two} ms, 4x ${four} ms`).toBeLessThan(MAX_RATIO);
}

// Read to the end whether the file is accepted or refused: the time is what is measured. The file's chunks are
// made before the clock starts.
const parse = (format: StatementFormat, text: string) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
  return async () => {
    try {
      for await (const _item of parseStatement(format, Readable.from(chunks)));
    } catch (err) {
      return (err as Error).message;
    }
  };
};

// What pads a field: spaces and tabs (trimmed away), digits and separators (an amount's own characters).
const padding = fc.constantFrom(' ', '\t', '0', '1', ',', '.', '-', 'a');
const edge = fc.constantFrom('', '12.30', '-', '+', '(', ')', 'x', '1,234', '.');
// A field of 2, 4 and 8 KB: within the 64 KB line, so the whole of it is read every time.
const FIELD = 2_048;
// Enough lines that the 1x file takes milliseconds, not the clock's resolution.
const LINES = 32;

// Run beside other test files on two cores, a timing can be thrown off now and then: a test is tried up to
// three times. A quadratic parser fails every time.
describe('each statement parser reads in time linear in its input', { retry: 2 }, () => {
  it('amounts: padding inside, before or after the number', async () => {
    await fc.assert(
      fc.asyncProperty(edge, padding, edge, async (before, pad, after) => {
        await expectLinear((scale) => {
          const text = `${before}${pad.repeat(FIELD * 32 * scale)}${after}`;
          return () => {
            for (let call = 0; call < 200; call += 1) parseAmount(text, 2);
          };
        });
      }),
      // Spaces between a number and a letter: the shape a trailing-sign regex takes quadratic time on.
      { numRuns: 4, examples: [['12.30', ' ', 'x']] },
    );
  });

  it('CSV: a padded amount or description on every line', async () => {
    await fc.assert(
      fc.asyncProperty(
        edge,
        padding,
        edge,
        fc.boolean(),
        fc.boolean(),
        async (start, pad, end, inAmount, quoted) => {
          const field = (scale: number) => {
            const text = `${start}${pad.repeat(FIELD * scale)}${end}`;
            return quoted ? `"${text}"` : text;
          };
          await expectLinear((scale) => {
            const line = inAmount
              ? `2026-03-02,${field(scale)},USD,JUSTIFI PAYOUT,R1\n`
              : `2026-03-02,12.30,USD,${field(scale)},R1\n`;
            return parse('csv', `Date,Amount,Currency,Description,Reference\n${line.repeat(LINES)}`);
          });
        },
      ),
      { numRuns: 3 },
    );
  });

  it('BAI2: detail text padded, on one line or over continuations (88)', async () => {
    await fc.assert(
      fc.asyncProperty(padding, edge, fc.boolean(), async (pad, end, continued) => {
        await expectLinear((scale) => {
          const text = continued
            ? Array.from({ length: 32 * scale }, () => `${pad.repeat(60)}${end}`).join('\n88,')
            : `${pad.repeat(FIELD * scale)}${end}`;
          return parse('bai2', bai2File(LINES, `16,165,1230,0,REF,,${text}`));
        });
      }),
      { numRuns: 3, examples: [[' ', 'x', false]] },
    );
  });

  it('camt.053: an amount or entry text padded, text split into CDATA, elements nested near the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        padding,
        edge,
        fc.constantFrom('amount', 'text', 'cdata', 'nested'),
        async (pad, end, shape) => {
          await expectLinear((scale) => {
            const text = `${pad.repeat(FIELD * scale)}${end}`;
            if (shape === 'amount') return parse('camt053', camtFile(LINES, '', `12.30${text}`));
            const info =
              shape === 'text'
                ? `<AddtlNtryInf>${text}</AddtlNtryInf>`
                : shape === 'cdata'
                  ? `<AddtlNtryInf>${`<![CDATA[${pad.repeat(512)}]]>`.repeat(Math.floor(FIELD / 1024))}</AddtlNtryInf>`.repeat(
                      scale,
                    )
                  : `${'<X>'.repeat(50)}${text}${'</X>'.repeat(50)}`;
            return parse('camt053', camtFile(LINES, info));
          });
        },
      ),
      { numRuns: 3, examples: [[' ', 'x', 'amount']] },
    );
  });
});

/** A BAI2 file of one account whose `count` detail records are `detail` (a credit of 12.30), totals right. */
function bai2File(count: number, detail: string): string {
  const physical = detail.split('\n').length;
  const accountRecords = 2 + count * physical;
  const total = 1230 * count;
  return [
    '01,BANK,TALLY,260301,0000,1,,,2/',
    '02,TALLY,BANK,1,260301,0000,USD,2/',
    '03,000987654321,USD,010,0,,/',
    ...Array.from({ length: count }, () => detail),
    `49,${total},${accountRecords}/`,
    `98,${total},1,${accountRecords + 2}/`,
    `99,${total},1,${accountRecords + 4}/`,
    '',
  ].join('\n');
}

/** A camt.053 statement of `count` booked credits of `amount`, each with `info` inside its entry. */
function camtFile(count: number, info: string, amount = '12.30'): string {
  const entry = `<Ntry><Amt Ccy="USD">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><ValDt><Dt>2026-03-02</Dt></ValDt>${info}</Ntry>\n`;
  return `<Document><BkToCstmrStmt><Stmt><Acct><Id><Othr><Id>1</Id></Othr></Id></Acct>\n${entry.repeat(count)}</Stmt></BkToCstmrStmt></Document>`;
}
