import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, linkTargets, npmRunScripts } from '../helpers/markdownLinks.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function markdownUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const pages = [join(root, 'README.md'), join(root, 'CHANGELOG.md'), ...markdownUnder(join(root, 'docs'))];
const read = (path: string) => readFileSync(path, 'utf8');

/** Every relative link of a page that names no file, or no heading of the Markdown page it names. */
function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(read(page))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const file = path === '' ? page : resolve(dirname(page), decodeURI(path));
    const where = `${relative(root, page)} → ${target}`;
    if (!existsSync(file)) {
      broken.push(`${where}: no such file`);
    } else if (anchor && file.endsWith('.md') && !headingAnchors(read(file)).has(anchor)) {
      broken.push(`${where}: no such heading`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('checks the README, the changelog and every page under docs/', () => {
    const names = pages.map((page) => relative(root, page));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/architecture.md']));
  });

  it('every relative link resolves to a file, and every anchor to a heading', () => {
    expect(pages.flatMap(brokenLinks)).toEqual([]);
  });

  it('every `npm run` script named in the docs exists in package.json', () => {
    const scripts = Object.keys(JSON.parse(read(join(root, 'package.json'))).scripts);
    const missing = pages.flatMap((page) =>
      npmRunScripts(read(page))
        .filter((name) => !scripts.includes(name))
        .map((name) => `${relative(root, page)}: npm run ${name}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('reading Markdown for the link check', () => {
  it('finds links and images outside code, not inside it', () => {
    const markdown = [
      'See [the API](http-api.md#errors) and ![shot](console.png "title").',
      '`[not a link](nowhere.md)`',
      '```sh',
      '[also not](nowhere.md)',
      '```',
    ].join('\n');
    expect(linkTargets(markdown)).toEqual(['http-api.md#errors', 'console.png']);
  });

  it('gives headings the anchors GitHub gives them', () => {
    const anchors = headingAnchors(
      '# Web hooks\n## `GET /api/reports` and `GET /api/reports/:id`\n## Web hooks\n',
    );
    expect([...anchors]).toEqual(['web-hooks', 'get-apireports-and-get-apireportsid', 'web-hooks-1']);
  });

  it('names the script of every npm run, flags skipped', () => {
    expect(
      npmRunScripts('npm run docs; npm run --silent tally -- export; npm run bench:ingest -- 8'),
    ).toEqual(['docs', 'tally', 'bench:ingest']);
  });
});
