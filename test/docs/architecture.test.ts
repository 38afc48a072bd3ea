import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { queues } from '../../src/queue/queues.ts';

// docs/architecture.md is the map a newcomer reads first: it must name what the code has.
const page = readFileSync('docs/architecture.md', 'utf8');
const diagram = page.split('```')[1] ?? '';

describe('the architecture page', () => {
  it('names every folder of src/', () => {
    const folders = readdirSync('src').filter((name) => statSync(`src/${name}`).isDirectory());
    expect(folders.length).toBeGreaterThanOrEqual(15);
    expect(folders.filter((folder) => !page.includes(`\`src/${folder}/\``))).toEqual([]);
  });

  it("shows every one of the clock's schedules in its diagram", () => {
    const scheduled = Object.entries(queues)
      .filter(([, queue]) => 'cron' in queue || 'cronSetting' in queue)
      .map(([name]) => name);
    expect(scheduled.length).toBeGreaterThanOrEqual(10);
    expect(scheduled.filter((name) => !diagram.includes(name))).toEqual([]);
  });

  it('lists every decision record', () => {
    const records = readdirSync('docs/decisions').filter((name) => /^\d{4}-.*\.md$/.test(name));
    expect(records.length).toBeGreaterThanOrEqual(13);
    expect(records.filter((name) => !page.includes(`(decisions/${name})`))).toEqual([]);
  });
});

describe('the recovery table of docs/reliability.md', () => {
  it('says how each queue recovers from a dead worker', () => {
    const reliability = readFileSync('docs/reliability.md', 'utf8');
    const table = reliability.split('| queue | a dead worker')[1]?.split('\n\n')[0] ?? '';
    expect(Object.keys(queues).filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });
});
