import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPreviousRelease, git } from './upgrade/previousRelease.ts';

// A repository whose package.json goes 0.1.0 (first commit), a dependency change, 0.2.0 (the release),
// a change on main that touches package.json again, and a branch that bumps to 0.3.0 and is merged back.
let root: string;
let repo: string;
const commits: Record<string, string> = {};

async function commit(name: string, packageJson: object | null, message: string) {
  if (packageJson) await writeFile(path.join(repo, 'package.json'), `${JSON.stringify(packageJson)}\n`);
  await writeFile(path.join(repo, 'notes.txt'), `${name}\n`);
  await git(repo, ['add', '.']);
  await git(repo, ['commit', '--quiet', '-m', message]);
  commits[name] = (await git(repo, ['rev-parse', 'HEAD'])).trim();
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tally-previous-release-'));
  repo = path.join(root, 'repo');
  await git(root, ['init', '--quiet', '--initial-branch=main', repo]);
  await git(repo, ['config', 'user.email', 'drill@example.com']);
  await git(repo, ['config', 'user.name', 'drill']);
  await commit('first', { name: 'app', version: '0.1.0' }, 'First');
  await commit('dependency', { name: 'app', version: '0.1.0', dependencies: { pg: '8' } }, 'Add pg');
  await commit('no package change', null, 'Docs');
  await commit(
    'release 0.2.0',
    { name: 'app', version: '0.2.0', dependencies: { pg: '8' } },
    'Release 0.2.0',
  );
  await git(repo, ['checkout', '--quiet', '-b', 'feature']);
  await commit('bump', { name: 'app', version: '0.3.0', dependencies: { pg: '8' } }, 'Version 0.3.0');
  await git(repo, ['checkout', '--quiet', 'main']);
  await commit('main dependency', { name: 'app', version: '0.2.0', dependencies: { pg: '9' } }, 'pg 9');
  await git(repo, ['merge', '--quiet', '--no-edit', 'feature']).catch(() => undefined);
  // The two sides changed neighbouring lines: the merge takes the bump and main's dependency.
  await writeFile(
    path.join(repo, 'package.json'),
    `${JSON.stringify({ name: 'app', version: '0.3.0', dependencies: { pg: '9' } })}\n`,
  );
  await writeFile(path.join(repo, 'notes.txt'), 'merged\n');
  await git(repo, ['add', '.']);
  await git(repo, ['commit', '--quiet', '--no-edit']);
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('the previous release, found in the history of package.json', () => {
  it('is the commit that set the version before the current one, past a merge that brings the bump in', async () => {
    const previous = await findPreviousRelease(repo, '0.3.0');
    expect(previous).toMatchObject({ commit: commits['release 0.2.0'], version: '0.2.0' });
    expect(previous.subject).toBe('Release 0.2.0');
  });

  it('is the first commit when the current version is the second one', async () => {
    await git(repo, ['checkout', '--quiet', commits['release 0.2.0'] as string]);
    try {
      expect(await findPreviousRelease(repo, '0.2.0')).toMatchObject({
        commit: commits.first,
        version: '0.1.0',
      });
    } finally {
      await git(repo, ['checkout', '--quiet', 'main']);
    }
  });

  it('does not exist when every commit has the current version', async () => {
    await git(repo, ['checkout', '--quiet', commits.dependency as string]);
    try {
      await expect(findPreviousRelease(repo, '0.1.0')).rejects.toThrow(
        'no commit before HEAD sets a package.json version other than 0.1.0',
      );
    } finally {
      await git(repo, ['checkout', '--quiet', 'main']);
    }
  });

  it('is found in a shallow clone once its history is fetched, and a clone that cannot fetch says why', async () => {
    const shallow = path.join(root, 'shallow');
    await git(root, ['clone', '--quiet', '--depth', '1', '--branch', 'main', `file://${repo}`, shallow]);
    expect((await git(shallow, ['rev-parse', '--is-shallow-repository'])).trim()).toBe('true');
    expect(await findPreviousRelease(shallow, '0.3.0')).toMatchObject({ commit: commits['release 0.2.0'] });
    expect((await git(shallow, ['rev-parse', '--is-shallow-repository'])).trim()).toBe('false');

    const orphan = path.join(root, 'orphan');
    await git(root, ['clone', '--quiet', '--depth', '1', '--branch', 'main', `file://${repo}`, orphan]);
    await git(orphan, ['remote', 'remove', 'origin']);
    await expect(findPreviousRelease(orphan, '0.3.0')).rejects.toThrow(
      /this clone is shallow and its history could not be fetched .*clone without --depth or run git fetch --unshallow/,
    );
  });
});
