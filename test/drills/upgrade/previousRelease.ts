import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export type PreviousRelease = { commit: string; version: string; subject: string; date: string };

export async function git(repo: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', ['-C', repo, ...args], { maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}

async function versionAt(repo: string, commit: string): Promise<string | null> {
  const text = await git(repo, ['show', `${commit}:package.json`]).catch(() => null);
  if (text === null) return null;
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : null;
}

// The commits whose parents this clone lacks: a shallow clone's boundary, where history cannot be read on.
async function shallowBoundary(repo: string): Promise<Set<string>> {
  const file = (await git(repo, ['rev-parse', '--path-format=absolute', '--git-path', 'shallow'])).trim();
  const text = await readFile(file, 'utf8').catch(() => '');
  return new Set(text.split('\n').filter(Boolean));
}

type Search = { found: PreviousRelease } | { reachedShallowBoundary: true } | { notFound: true };

/**
 * Walks the commits that touched package.json, newest first, for the newest one that set a version other
 * than `currentVersion`: its own version differs from each of its parents' (a merge that only brings a
 * version in from one side sets nothing; the first commit sets its own). Tags are not read: a clone may have
 * none.
 */
async function searchHistory(repo: string, currentVersion: string): Promise<Search> {
  const boundary = await shallowBoundary(repo);
  const log = await git(repo, ['log', '--topo-order', '--format=%H %P', 'HEAD', '--', 'package.json']);
  for (const line of log.split('\n').filter(Boolean)) {
    const [commit, ...parents] = line.split(' ').filter(Boolean) as [string, ...string[]];
    const version = await versionAt(repo, commit);
    if (version === null || version === currentVersion) continue;
    if (boundary.has(commit)) return { reachedShallowBoundary: true };
    const parentVersions = await Promise.all(parents.map((parent) => versionAt(repo, parent)));
    if (parentVersions.includes(version)) continue;
    const [subject = '', date = ''] = (await git(repo, ['show', '-s', '--format=%s%n%cs', commit])).split(
      '\n',
    );
    return { found: { commit, version, subject, date } };
  }
  return boundary.size > 0 ? { reachedShallowBoundary: true } : { notFound: true };
}

/**
 * The previous release of the code at `repo`'s HEAD: the commit that set the package.json version before
 * `currentVersion` (the version of the code being tested). A shallow clone is deepened once with
 * `git fetch --unshallow`; when that fails, the error says how to get the history.
 */
export async function findPreviousRelease(repo: string, currentVersion: string): Promise<PreviousRelease> {
  let search = await searchHistory(repo, currentVersion);
  if ('reachedShallowBoundary' in search) {
    process.stdout.write('the clone is shallow: fetching its history (git fetch --unshallow)\n');
    const fetchError = await git(repo, ['fetch', '--quiet', '--unshallow']).then(
      () => null,
      (err: { stderr?: string; message: string }) => (err.stderr || err.message).trim(),
    );
    search = fetchError === null ? await searchHistory(repo, currentVersion) : search;
    if ('reachedShallowBoundary' in search) {
      throw new Error(
        `this clone is shallow and its history could not be fetched (${fetchError ?? 'the fetch brought none'}): ` +
          'the previous release is found in the history of package.json, so clone without --depth or run ' +
          'git fetch --unshallow',
      );
    }
  }
  if ('found' in search) return search.found;
  throw new Error(
    `no commit before HEAD sets a package.json version other than ${currentVersion}: there is no previous release to upgrade from`,
  );
}
