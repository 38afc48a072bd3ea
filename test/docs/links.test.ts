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

function filesUnder(folder: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return filesUnder(path, keep);
    return keep(name) ? [path] : [];
  });
}

// The code a reader opens: its comments cite files by path from the root, from their own folder, or by name.
const SOURCE_FOLDERS = ['src', 'jobs', 'scripts', 'bench', 'simulator', 'test'];
const sources = SOURCE_FOLDERS.flatMap((folder) =>
  filesUnder(join(root, folder), (name) => name.endsWith('.ts')),
);
const projectFiles = filesUnder(root, () => true);
const projectNames = new Set(projectFiles.map((path) => path.split('/').at(-1)));

/** The comment text of a TypeScript source: `//` comments and the lines of `/* … *\/` blocks. */
function commentsOf(source: string): string[] {
  const comments: string[] = [];
  let inBlock = false;
  for (const line of source.split('\n')) {
    const trimmed = line.trim();
    if (inBlock || trimmed.startsWith('/*')) {
      comments.push(trimmed);
      inBlock = !trimmed.includes('*/');
    } else if (trimmed.startsWith('//')) comments.push(trimmed);
    else if (line.includes(' // ')) comments.push(line.slice(line.indexOf(' // ')));
  }
  return comments;
}

/** Every file a source's comments cite, by path or by name, that the project does not have. */
function missingCitations(source: string): string[] {
  const cited = commentsOf(read(source)).flatMap((comment) =>
    [
      ...comment.matchAll(
        /(?<![\w/.-])((?:\.{1,2}\/|[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:md|ts|sql|json|ya?ml))\b/g,
      ),
    ].map((match) => match[1] as string),
  );
  // A path resolves from any folder above the source or from src/ (`api/app.ts` from src/ingest/); a bare
  // name (`readPool.ts`) is any project file of that name; `res.json` and the like are code, not files.
  const folders = (path: string): string[] => (path === root ? [root] : [path, ...folders(dirname(path))]);
  return cited
    .filter((path) => {
      const bases = [...folders(dirname(source)), join(root, 'src')];
      if (bases.some((folder) => existsSync(resolve(folder, path)))) return false;
      if (path.includes('/')) return true;
      return !path.endsWith('.json') && !projectNames.has(path);
    })
    .map((path) => `${relative(root, source)}: ${path}`);
}

describe('documentation links', () => {
  it('checks the README, the changelog and every page under docs/', () => {
    const names = pages.map((page) => relative(root, page));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/architecture.md']));
  });

  it('every relative link resolves to a file, and every anchor to a heading', () => {
    expect(pages.flatMap(brokenLinks)).toEqual([]);
  });

  it('every file a source comment cites exists in the project', () => {
    expect(sources.length).toBeGreaterThan(300);
    expect(sources.flatMap(missingCitations)).toEqual([]);
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

describe('reading source comments for the citation check', () => {
  it('reads the files cited in comments, not in code', () => {
    const source = [
      '/**',
      ' * See docs/month-end.md and readPool.ts (DESIGN.md, "Closing").',
      ' */',
      "import { x } from './nowhere.ts'; // as src/db/pool.ts does",
      '// node:fs, v1.2.3 and e.g. are no files',
    ].join('\n');
    const cited = commentsOf(source).join('\n');
    expect(cited).toContain('DESIGN.md');
    expect(cited).toContain('src/db/pool.ts');
    expect(cited).not.toContain('nowhere.ts');
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
