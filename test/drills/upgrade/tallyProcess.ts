import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type TallyProcess = {
  /** What the drill calls it in its output: `old web`, `new worker`, … */
  label: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<number | null>;
};

/**
 * Runs one of a checkout's Procfile entry points (`src/processes/<role>.ts`) as its own process, from that
 * checkout's directory, with the Node running the drill. Its output goes to a file in `logDir`, which the log
 * scan reads after the drill.
 */
export function startTallyProcess(
  label: string,
  codeDir: string,
  role: 'release' | 'web' | 'worker',
  env: Record<string, string>,
  logDir: string,
): TallyProcess {
  const logFile = path.join(logDir, `upgrade-${label.replace(' ', '-')}-${Date.now()}.log`);
  const output = openSync(logFile, 'a');
  const child = spawn(process.execPath, [`src/processes/${role}.ts`], {
    cwd: codeDir,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', output, output],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { label, child, logFile, exited };
}

/** The process's log lines that are JSON (pino), parsed. */
export async function logEntries(tally: TallyProcess): Promise<Record<string, unknown>[]> {
  const text = await readFile(tally.logFile, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function lastLines(tally: TallyProcess): Promise<string> {
  const text = await readFile(tally.logFile, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-5).join('\n');
}

/** Polls `ready` until it holds; fails when the process exits first or after `timeoutMs`. */
export async function waitUntilReady(
  tally: TallyProcess,
  ready: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  let exitCode: number | null | undefined;
  tally.exited.then((code) => {
    exitCode = code;
  });
  for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(100)) {
    if (exitCode !== undefined) {
      throw new Error(`${tally.label} exited ${exitCode} before it was ready:\n${await lastLines(tally)}`);
    }
    if (await ready()) return;
  }
  throw new Error(`${tally.label} was not ready within ${timeoutMs / 1000} s:\n${await lastLines(tally)}`);
}

/** Ready once `/readyz` answers 200: it reads the database through the web process's pool. */
export function webIsReady(baseUrl: string): () => Promise<boolean> {
  return () =>
    fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.status === 200,
      () => false,
    );
}

/** Ready once the process has logged a line whose message is `message`. */
export function hasLogged(tally: TallyProcess, message: string): () => Promise<boolean> {
  return async () => (await logEntries(tally)).some((entry) => entry.msg === message);
}

/** Runs a process to its end; fails unless it exits 0. */
export async function runToEnd(tally: TallyProcess): Promise<void> {
  const code = await tally.exited;
  if (code !== 0) throw new Error(`${tally.label} exited ${code}:\n${await lastLines(tally)}`);
}

/** SIGTERM, as a platform stops a process, and waits for it to finish what it holds and exit 0. */
export async function stopGracefully(tally: TallyProcess, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  tally.child.kill('SIGTERM');
  const code = await Promise.race([tally.exited, sleep(timeoutMs).then(() => 'timeout' as const)]);
  if (code === 'timeout')
    throw new Error(`${tally.label} did not stop within ${timeoutMs / 1000} s of SIGTERM`);
  if (code !== 0) throw new Error(`${tally.label} exited ${code} after SIGTERM:\n${await lastLines(tally)}`);
  return Date.now() - started;
}
