import { vi } from 'vitest';
import { runCli } from '../../src/cli/run.ts';

type Written = { code: number; stdout: string; stderr: string };

/**
 * Runs `tally ARGS...` in this process through the same dispatch as src/cli/main.ts, collecting what it writes
 * to stdout and stderr, with `env` added to this process's environment (`undefined` unsets a variable). Each
 * command keeps one test that starts the real CLI (helpers/childProcess.ts: exit code and streams as a user
 * sees them); the rest of its cases run here, where a start costs nothing instead of about half a CPU-second.
 * One at a time: what the command writes is taken from this process's own stdout and stderr while it runs.
 */
export async function tallyInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<Written> {
  const written = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
      written[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString();
      const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      done?.();
      return true;
    });
  const stdout = capture('stdout');
  const stderr = capture('stderr');
  try {
    // As a child's environment: an unset variable is absent, not present and undefined.
    const merged = Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined);
    const code = await runCli(args, Object.fromEntries(merged));
    return { code, ...written };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}
