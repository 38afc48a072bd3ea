import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

export type Role = {
  child: ChildProcess;
  lines: string[];
  started: Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
};

/** Starts a Procfile role (web, worker, clock) as its own process; `started` resolves when it logs `ready`. */
export function startRole(
  role: 'web' | 'worker' | 'clock',
  env: Record<string, string>,
  ready: string,
): Role {
  const child = spawn(process.execPath, [`src/processes/${role}.ts`], {
    // The compile cache, when the run set one (vitest.config.ts), is no setting of the role's.
    env: {
      PATH: process.env.PATH,
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  const logFile = path.join(inject('logDir'), `${role}-${child.pid}.log`);
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        lines.push(line);
        appendFileSync(logFile, `${line}\n`);
        const entry = JSON.parse(line);
        if (entry.msg === ready) resolve(entry);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
    child.on('exit', (code) => reject(new Error(`${role} exited ${code}: ${lines.slice(-5).join('\n')}`)));
  });
  started.catch(() => undefined);
  return { child, lines, started, exited };
}
