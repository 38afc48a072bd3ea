/**
 * `npm test`: the typecheck and the lint run beside vitest rather than before it (they read the files and
 * share nothing with the tests, and they take the CPU vitest leaves idle while it starts Postgres and migrates
 * the template), then the scan of every log line the run wrote. Each check's output is printed when it ends,
 * in full only when it failed; the exit code is non-zero when any of them failed. Arguments go to vitest.
 */
import { spawn } from 'node:child_process';

type Outcome = { name: string; code: number | null; output: string; seconds: number };

function run(name: string, command: string, args: string[], quiet: boolean): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ name, code, output, seconds: (Date.now() - started) / 1000 }));
  });
}

function report(outcome: Outcome): Outcome {
  const verdict = outcome.code === 0 ? 'passed' : `failed (exit ${outcome.code})`;
  if (outcome.code !== 0) process.stderr.write(outcome.output);
  process.stderr.write(`${outcome.name} ${verdict} in ${outcome.seconds.toFixed(1)} s\n`);
  return outcome;
}

// Through npm, so each check is the one its own script declares.
const checks = [
  run('typecheck', 'npm', ['run', '--silent', 'typecheck'], true).then(report),
  run('lint', 'npm', ['run', '--silent', 'lint'], true).then(report),
];
const tests = await run('vitest', 'vitest', ['run', ...process.argv.slice(2)], false);
const outcomes = [...(await Promise.all(checks)), tests];
// The scan reads what the tests wrote: it only means something after a run that passed.
if (tests.code === 0)
  outcomes.push(await run('log scan', process.execPath, ['test/helpers/logScan.ts'], false));
const failed = outcomes.filter((outcome) => outcome.code !== 0).map((outcome) => outcome.name);
if (failed.length > 0) process.stderr.write(`npm test failed: ${failed.join(', ')}\n`);
process.exitCode = failed.length === 0 ? 0 : 1;
