import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Where every app and process the tests start writes its log lines, for the scan after the run. */
export const TEST_LOG_DIR = path.join(import.meta.dirname, '..', '..', '.test-logs');

/** Secrets the tests configure; none may ever appear in a log line. */
export const TEST_SECRETS = [
  'whsec_current_0123456789_abcdefghij',
  'whsec_previous_0123456789_abcdefghi',
  'test-api-token-0123456789',
  'test_client_secret',
  'justifi-test-key',
  'sigk_59MIs5qN2tBrsNw6JzIXlU',
  'whsec_target_instance_0123456789ab',
  'whsec_process_test_0123456789_abcd',
  'whsec_metrics_port_0123456789_abcd',
  'whsec_read_replica_0123456789_abcd',
  // test/findings/workflow/helpers.ts: the named tokens of API_TOKENS.
  'read-token-for-tests-0123456789',
  'alice-admin-token-0123456789',
];

/**
 * Every log line written during the run, checked for a configured secret or a full card number (pino's
 * own millisecond `time` is left out: it is not data). Card numbers are found by findCardNumber below, not by
 * the redactor under test. Returns the problems found and how many lines were read.
 */
export async function scanLogs(dir: string): Promise<{ lines: number; problems: string[] }> {
  const problems: string[] = [];
  let lines = 0;
  for (const file of await readdir(dir)) {
    for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
      if (line.trim() === '') continue;
      lines += 1;
      const text = line.replace(/"time":\d+,?/, '');
      for (const secret of TEST_SECRETS) {
        if (text.includes(secret)) problems.push(`${file}: a secret (${secret.slice(0, 6)}…) was logged`);
      }
      if (findCardNumber(text) !== null) problems.push(`${file}: a card number was logged`);
    }
  }
  if (lines === 0) problems.push('no log line was written: the scan saw nothing');
  return { lines, problems };
}

const UUID = /[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi;
// What may stand between the digit groups of one written card number.
const SEPARATORS = new Set([' ', '-', '.', '\u00a0', '  ']);

/**
 * A Luhn-valid run of 13 to 19 digits made of whole, consecutive digit groups (UUIDs aside), or null. Written
 * apart from src/domain/cardNumbers.ts on purpose, by brute force over every run of groups: a scan that used the
 * redactor would miss exactly what the redactor misses.
 */
export function findCardNumber(text: string): string | null {
  const scanned = text.replace(UUID, '#');
  const groups = [...scanned.matchAll(/\d+/g)];
  for (let first = 0; first < groups.length; first++) {
    let digits = '';
    for (let last = first; last < groups.length; last++) {
      const group = groups[last] as RegExpMatchArray;
      if (last > first) {
        const previous = groups[last - 1] as RegExpMatchArray;
        const gap = scanned.slice((previous.index ?? 0) + previous[0].length, group.index);
        if (!SEPARATORS.has(gap)) break;
      }
      digits += group[0];
      if (digits.length > 19) break;
      if (digits.length >= 13 && luhn(digits)) return digits;
    }
  }
  return null;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let fromRight = 0; fromRight < digits.length; fromRight++) {
    const digit = Number(digits[digits.length - 1 - fromRight]);
    sum += fromRight % 2 === 0 ? digit : digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
  }
  return sum % 10 === 0;
}

// `npm test` runs this after vitest: the run fails if any log line of the whole run leaked something.
if (import.meta.main) {
  const { lines, problems } = await scanLogs(TEST_LOG_DIR);
  for (const problem of problems.slice(0, 20)) process.stderr.write(`${problem}\n`);
  process.stdout.write(`log scan: ${lines} lines, ${problems.length} leaks\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
