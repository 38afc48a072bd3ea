import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { deliverPayment } from '../findings/workflow/helpers.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, watchProblems } from './browser.ts';

const ARTIFACTS = path.join(import.meta.dirname, '..', '..', '.test-artifacts', 'console');

let t: TestApp;
let server: Server;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  await deliverPayment(t, 'py_browser_1', 71, 'acc_browser');
  await deliverPayment(t, 'py_browser_2', 71, 'acc_browser');
  server = await serve(t.app, 0);
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' ? address?.port : address}`;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await closeServer(server);
  await t?.close();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
const text = (page: Page) =>
  page.$eval('main', (main) => (main as unknown as { innerText: string }).innerText);

async function submit(page: Page, selector: string) {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

describe('the console in a real browser', () => {
  it('signs in, reads the overview, filters findings, opens a payment, acknowledges and accepts, signs out', async () => {
    const page = await browser.newPage();
    // Every request of every page answers, the icon included, and nothing is logged as an error.
    const problems = watchProblems(page);
    await page.setViewport({ width: 1280, height: 900 });
    // Each request and its answer, for the message of a failed step.
    const trace: string[] = [];
    page.on('response', (r) => trace.push(`${r.request().method()} ${r.url()} ${r.status()}`));
    await page.goto(`${base}/`);
    expect(page.url()).toBe(`${base}/console/sign-in`);
    await page.type('#token', API_TOKEN);
    await submit(page, 'form button[type="submit"]');
    expect(page.url(), trace.join('\n')).toBe(`${base}/console`);
    expect(await text(page)).toContain('fee_total_mismatch');
    await shot(page, '1-overview');

    await page.goto(`${base}/console/findings`);
    await page.type('input[name="account_id"]', 'acc_browser');
    await page.select('select[name="status"]', 'open');
    await submit(page, 'form.filters button');
    expect(new URL(page.url()).searchParams.get('account_id')).toBe('acc_browser');
    const rows = await page.$$eval('main table tbody tr', (trs) =>
      trs.map((tr) => (tr as unknown as { innerText: string }).innerText),
    );
    expect(rows).toHaveLength(2);
    await shot(page, '2-findings');

    await page.goto(`${base}/console/payments/py_browser_1`);
    expect(await page.$$eval('ol.timeline > li', (items) => items.length)).toBe(1);
    await page.click('ol.timeline summary strong');
    expect(await text(page)).toContain('"fee_amount": 71');
    await shot(page, '3-payment');

    await submit(page, 'main a[href^="/console/findings/fnd_"]');
    await submit(page, 'button[formaction$="/acknowledge"]');
    expect(await text(page)).toMatch(/admin acknowledge: open → acknowledged/);
    await page.type('#note', 'negotiated rate, agreed by finance');
    await submit(page, 'button[formaction$="/accept"]');
    expect(await text(page)).toMatch(
      /admin accept: acknowledged → accepted\s+negotiated rate, agreed by finance/,
    );
    await shot(page, '4-finding');

    // Small screens: the same pages, readable on a phone.
    await page.setViewport({ width: 390, height: 844 });
    await page.goto(`${base}/console`);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow as number).toBeLessThanOrEqual(0);
    await shot(page, '5-phone-overview');

    await submit(page, 'form.who button');
    expect(page.url()).toBe(`${base}/console/sign-in`);
    await page.goto(`${base}/console/findings`);
    expect(page.url()).toBe(`${base}/console/sign-in`);
    await page.goto(`${base}/favicon.ico`);
    expect(problems).toEqual([]);
  }, 120_000);
});
