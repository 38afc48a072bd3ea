import { spawn } from 'node:child_process';

/**
 * Runs one of the project's scripts in a child Node, as a user would, and collects what it prints. It runs
 * asynchronously, so servers in the test's own process (an app, the provider simulator) go on answering it.
 * `env` is added to this process's environment; `undefined` unsets an inherited variable.
 */
export function runScript(args: string[], env: Record<string, string | undefined> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
