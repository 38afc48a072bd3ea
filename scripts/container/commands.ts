import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFile } from 'node:fs/promises';

const started = Date.now();
const runningCommands = new Set<ChildProcess>();
let interrupted = false;

/**
 * Makes the check wind down: the commands running now are stopped and waits end, so the current step fails at
 * once and the cleanup in its `finally` runs (containers removed, Postgres stopped, debootstrap's tree
 * unmounted); the cleanup's own commands run normally.
 */
export function interrupt(): void {
  interrupted = true;
  for (const child of runningCommands) child.kill('SIGTERM');
}

/** One progress line, with the seconds since the check started. */
export function progress(message: string): void {
  process.stdout.write(
    `[check:container ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`,
  );
}

export function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

export type RunOptions = {
  /** Every line the command writes is appended here; a failure prints the last lines too. */
  logFile: string;
  env?: Record<string, string>;
  /** Bytes written to the command's standard input. */
  stdin?: NodeJS.ReadableStream;
  /** Exit codes that count as success (default: 0 only). */
  okCodes?: number[];
};

/** Runs a command to its end and returns its standard output; a failing exit code throws with its last lines. */
export function run(command: string, args: string[], options: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    runningCommands.add(child);
    if (options.stdin) options.stdin.pipe(child.stdin);
    else child.stdin.end();
    let stdout = '';
    let tail = '';
    const keep = (chunk: Buffer, toStdout: boolean) => {
      const text = chunk.toString();
      if (toStdout) stdout += text;
      tail = (tail + text).slice(-4000);
      void appendFile(options.logFile, text);
    };
    child.stdout.on('data', (chunk: Buffer) => keep(chunk, true));
    child.stderr.on('data', (chunk: Buffer) => keep(chunk, false));
    child.once('error', reject);
    child.once('close', async (code) => {
      runningCommands.delete(child);
      await appendFile(options.logFile, `\n[${command} ${args.join(' ')}: exit ${code}]\n`);
      if ((options.okCodes ?? [0]).includes(code ?? -1)) resolve(stdout.trim());
      else {
        const lines = tail.trim().split('\n').slice(-25).join('\n');
        reject(new Error(`${command} ${args.slice(0, 3).join(' ')} … exited ${code}:\n${lines}`));
      }
    });
  });
}

/** Podman and the global flags every call needs (the OCI runtime). */
export type Podman = { command: string; globalArgs: string[]; logFile: string };

export function podman(tool: Podman, args: string[], okCodes?: number[]): Promise<string> {
  return run(tool.command, [...tool.globalArgs, ...args], { logFile: tool.logFile, okCodes });
}

export function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Polls `attempt` until it returns a value, every `everyMs`, for at most `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  attempt: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (interrupted) throw new Error(`${what}: interrupted`);
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
