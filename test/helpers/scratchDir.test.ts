import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeStaleClusters } from './scratchDir.ts';

const parent = await mkdtemp(path.join(tmpdir(), 'tally-scratch-parent-'));
afterAll(() => rm(parent, { recursive: true, force: true }));

const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
// A pid no process has any more: a child that has exited.
const exitedPid = spawnSync(process.execPath, ['-e', '']).pid;

async function cluster(name: string, pid: number | null, made: Date) {
  const dir = path.join(parent, name);
  await mkdir(path.join(dir, 'postgres'), { recursive: true });
  if (pid !== null) await writeFile(path.join(dir, 'postgres', 'postmaster.pid'), `${pid}\n/data\n`);
  await utimes(dir, made, made);
  return dir;
}

describe('the clusters killed runs left behind', () => {
  it('are removed once over an hour old with no postmaster running; a running or recent one is kept', async () => {
    const left = await cluster('tally-test-left', null, twoHoursAgo);
    const crashed = await cluster('tally-standby-crashed', exitedPid, twoHoursAgo);
    const running = await cluster('tally-test-running', process.pid, twoHoursAgo);
    const recent = await cluster('tally-test-recent', null, new Date());
    const other = await cluster('someone-elses', null, twoHoursAgo);

    expect((await removeStaleClusters(parent)).sort()).toEqual([crashed, left].sort());
    expect([left, crashed, running, recent, other].map((dir) => existsSync(dir))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});
