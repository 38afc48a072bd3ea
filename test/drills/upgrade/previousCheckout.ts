import { execFile, spawn } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * The lock file's dependencies, without the project's own version: a release bump changes that version in
 * package-lock.json and nothing else, and must not cost a fresh install.
 */
function dependenciesOf(lockText: string): string {
  const lock = JSON.parse(lockText) as { version?: string; packages?: Record<string, { version?: string }> };
  delete lock.version;
  delete lock.packages?.['']?.version;
  return JSON.stringify(lock);
}

function runPiped(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args[0]} exited ${code}`)),
    );
  });
}

/**
 * The previous release's files in `dir` (git archive, so the repository's worktrees and index are left
 * alone) with its node_modules: the current ones hardlinked when both lock files name the same packages,
 * otherwise `npm ci` from the configured registry. `dir` is inside the project, on the same filesystem as
 * node_modules, so the hardlinks work. Answers how node_modules was made.
 */
export async function checkOutPreviousRelease(repo: string, commit: string, dir: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const archive = path.join(dir, '..', `${path.basename(dir)}.tar`);
  await execFileAsync('git', ['-C', repo, 'archive', '--format=tar', `--output=${archive}`, commit]);
  await execFileAsync('tar', ['-x', '-f', archive, '-C', dir]);
  await rm(archive);
  const [previousLock, currentLock] = await Promise.all([
    readFile(path.join(dir, 'package-lock.json'), 'utf8'),
    readFile(path.join(repo, 'package-lock.json'), 'utf8'),
  ]);
  if (dependenciesOf(previousLock) === dependenciesOf(currentLock)) {
    await execFileAsync('cp', ['-al', path.join(repo, 'node_modules'), path.join(dir, 'node_modules')]);
    return 'the same lock file: node_modules hardlinked from the current checkout';
  }
  await runPiped('npm', ['ci', '--no-audit', '--no-fund'], dir);
  return 'a different lock file: node_modules installed with npm ci';
}
