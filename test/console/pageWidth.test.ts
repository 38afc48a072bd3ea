import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, signInWithBrowser, watchProblems } from './browser.ts';
import { ACCOUNT, seedConsoleLists } from './listSeed.ts';

const ARTIFACTS = path.join(import.meta.dirname, '..', '..', '.test-artifacts', 'console', 'widths');

// Every list page of the console, written out: a new list is added here, and the navigation must link it.
const LIST_PAGES = [
  '/console',
  '/console/findings',
  '/console/deliveries',
  '/console/alerts',
  '/console/ach-returns',
  '/console/disputes',
  '/console/payouts',
  '/console/declines',
  '/console/reports',
  '/console/periods',
  '/console/subscriptions',
];

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

/**
 * What does not fit on a page, in words. A list shows a table with rows and no JSON (details belong on an item's
 * own page). A table fits whole where `wholeTables`; elsewhere it may scroll inside a container that fits.
 */
function faultsOf(
  pagePath: string,
  measure: Measure,
  rules: { list: boolean; wholeTables: boolean },
): string[] {
  const faults: string[] = [];
  if (measure.pageWidth > measure.viewport)
    faults.push(`${pagePath}: the page is ${measure.pageWidth} px wide in a ${measure.viewport} px window`);
  if (rules.list && measure.tables.length === 0) faults.push(`${pagePath}: no table`);
  for (const [n, table] of measure.tables.entries()) {
    const name = `${pagePath}, table ${n + 1}`;
    if (rules.list && table.rows === 0) faults.push(`${name}: no rows`);
    if (rules.list && /[{[]"/.test(table.text)) faults.push(`${name}: shows JSON`);
    if (table.containerRight > measure.viewport)
      faults.push(`${name}: its container ends at ${table.containerRight} px`);
    if ((rules.wholeTables || !table.scrolls) && table.right > table.containerRight)
      faults.push(`${name}: ends at ${table.right} px, past its container's ${table.containerRight} px`);
  }
  return faults;
}

let t: TestApp;
let server: Server;
let browser: Browser;
let base: string;
let page: Page;
let problems: string[];

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  await seedConsoleLists(t);
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
    expect(links.map((href) => href?.split('?')[0]).sort()).toEqual([...LIST_PAGES].sort());
    expect(LIST_PAGES).toHaveLength(11);
  });

  for (const screen of WIDTHS)
    it(`fits ${screen.width} px: no page wider than the window, every table's right edge in view`, async () => {
      await page.setViewport({ width: screen.width, height: screen.height });
      const faults: string[] = [];
      for (const listPath of LIST_PAGES) {
        await page.goto(`${base}${listPath}`);
        expect(page.url(), listPath).toBe(`${base}${listPath}`);
        await page.screenshot({
          path: path.join(ARTIFACTS, `${screen.name}${listPath.replaceAll('/', '-')}.png`),
          fullPage: true,
        });
        const measure = (await page.evaluate(MEASURE)) as Measure;
        // On a laptop a list's tables fit whole; on a phone one may scroll inside its own container.
        faults.push(...faultsOf(listPath, measure, { list: true, wholeTables: screen.width >= 1280 }));
      }
      expect(faults).toEqual([]);
      expect(problems).toEqual([]);
    }, 60_000);

  it('keeps each page a list links to (a finding, delivery, payment, payout, report, period, subscription) no wider than the window', async () => {
    const pages: string[] = [];
    for (const listPath of [
      '/console/periods',
      '/console/findings',
      '/console/deliveries',
      '/console/declines',
      '/console/payouts',
      '/console/reports',
      '/console/subscriptions',
    ]) {
      await page.goto(`${base}${listPath}`);
      pages.push(await page.$eval('main table tbody a', (link) => link.getAttribute('href') as string));
    }
    const faults: string[] = [];
    for (const screen of WIDTHS) {
      await page.setViewport({ width: screen.width, height: screen.height });
      for (const detailPath of pages) {
        // An answer of 400 or more is one of the problems checked below (a page seen before may answer 304).
        await page.goto(`${base}${detailPath}`);
        expect(page.url()).toBe(`${base}${detailPath}`);
        await page.screenshot({
          path: path.join(ARTIFACTS, `${screen.name}${detailPath.split('/').slice(0, 3).join('-')}-one.png`),
          fullPage: true,
        });
        // One item's every field: its tables (a payout's lines) may scroll inside their containers.
        const measure = (await page.evaluate(MEASURE)) as Measure;
        faults.push(...faultsOf(detailPath, measure, { list: false, wholeTables: false }));
      }
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
