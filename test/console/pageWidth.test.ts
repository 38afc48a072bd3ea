import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { routerRoutes } from '../helpers/routes.ts';
import { launchChromium, signInWithBrowser, watchProblems } from './browser.ts';
import { ACCOUNT, seedConsoleLists } from './listSeed.ts';

const ARTIFACTS = path.join(import.meta.dirname, '..', '..', '.test-artifacts', 'console', 'widths');

// Pages of the console's router that list nothing: the sign-in form and the payment search box (a redirect).
const NOT_LISTS = ['/console/sign-in', '/console/payments'];

/** Every list page the console's router has: its GET routes without a path parameter. */
const listPagesOf = (app: TestApp['app']) =>
  routerRoutes(app)
    .filter((route) => route.startsWith('GET /console') && !route.includes(':'))
    .map((route) => route.slice('GET '.length).replace(/(.)\/$/, '$1'))
    .filter((listPath) => !NOT_LISTS.includes(listPath));

const WIDTHS = [
  { name: 'laptop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

type Measure = {
  viewport: number;
  pageWidth: number;
  tables: { rows: number; right: number; containerRight: number; scrolls: boolean; text: string }[];
};

// Runs in the page: the document's width and each table's right edge beside its container's.
const MEASURE = `(() => {
  const tables = [...document.querySelectorAll('main table')].map((table) => {
    const scroller = table.closest('.scroll');
    const container = scroller ?? table.parentElement;
    return {
      rows: table.querySelectorAll('tbody tr').length,
      right: Math.ceil(table.getBoundingClientRect().right),
      containerRight: Math.ceil(container.getBoundingClientRect().right),
      scrolls: scroller !== null,
      text: table.innerText,
    };
  });
  return { viewport: window.innerWidth, pageWidth: document.documentElement.scrollWidth, tables };
})()`;

/** What does not fit on a page, in words: a list page with rows that fits whole (a phone may scroll a table). */
function faultsOf(listPath: string, width: number, measure: Measure): string[] {
  const faults: string[] = [];
  if (measure.pageWidth > measure.viewport)
    faults.push(`${listPath}: the page is ${measure.pageWidth} px wide in a ${measure.viewport} px window`);
  if (measure.tables.length === 0) faults.push(`${listPath}: no table`);
  for (const [n, table] of measure.tables.entries()) {
    const name = `${listPath}, table ${n + 1}`;
    if (table.rows === 0) faults.push(`${name}: no rows`);
    // Details (JSON) belong on a finding's own page, never in a list.
    if (/[{[]"/.test(table.text)) faults.push(`${name}: shows JSON`);
    if (table.containerRight > measure.viewport)
      faults.push(`${name}: its container ends at ${table.containerRight} px`);
    // On a laptop a table fits whole; on a phone it may scroll inside its own container.
    if ((width >= 1280 || !table.scrolls) && table.right > table.containerRight)
      faults.push(`${name}: ends at ${table.right} px, past its container's ${table.containerRight} px`);
  }
  return faults;
}

let t: TestApp;
let listPages: string[];
let server: Server;
let browser: Browser;
let base: string;
let page: Page;
let problems: string[];

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  await seedConsoleLists(t);
  listPages = listPagesOf(t.app);
  server = await serve(t.app, 0);
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' ? address?.port : address}`;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  page = await browser.newPage();
  problems = watchProblems(page);
  await signInWithBrowser(page, base, API_TOKEN);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await closeServer(server);
  await t?.close();
});

describe('every console list fits the screen', () => {
  it('knows every list page, each one in the navigation', async () => {
    await page.goto(`${base}/console`);
    const links = await page.$$eval('header nav a', (anchors) => anchors.map((a) => a.getAttribute('href')));
    expect(links.map((href) => href?.split('?')[0]).sort()).toEqual([...listPages].sort());
    expect(listPages).toHaveLength(9);
  });

  for (const screen of WIDTHS)
    it(`fits ${screen.width} px: no page wider than the window, every table's right edge in view`, async () => {
      await page.setViewport({ width: screen.width, height: screen.height });
      const faults: string[] = [];
      for (const listPath of listPages) {
        await page.goto(`${base}${listPath}`);
        expect(page.url(), listPath).toBe(`${base}${listPath}`);
        await page.screenshot({
          path: path.join(ARTIFACTS, `${screen.name}${listPath.replaceAll('/', '-')}.png`),
          fullPage: true,
        });
        faults.push(...faultsOf(listPath, screen.width, (await page.evaluate(MEASURE)) as Measure));
      }
      expect(faults).toEqual([]);
      expect(problems).toEqual([]);
    }, 60_000);

  it('shows the money at stake of every finding in view on a laptop, sorted by it on request', async () => {
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${base}/console/findings?account_id=${ACCOUNT}&sort=at_stake`);
    const column = await page.$$eval('main table thead th', (cells) =>
      cells.findIndex((cell) => cell.textContent?.trim() === 'At stake'),
    );
    expect(column).toBeGreaterThanOrEqual(0);
    const stakes = (await page.evaluate(`[...document.querySelectorAll('main table tbody tr')].map((row) => {
      const cell = row.children[${column}];
      return { text: cell.innerText.trim(), right: cell.getBoundingClientRect().right };
    })`)) as { text: string; right: number }[];
    expect(stakes.map((stake) => stake.text)).toEqual([
      '$12,345.67',
      '$2,500.00',
      '$1,234.56',
      '$42.00',
      '$0.01',
      '$0.01',
      '$0.01',
      '—',
    ]);
    for (const stake of stakes) expect(stake.right).toBeLessThanOrEqual(1280);
    expect(problems).toEqual([]);
  });
});
