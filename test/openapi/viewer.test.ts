import { execFileSync } from 'node:child_process';
import type { Server } from 'node:http';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/api/openapi/document.ts';
import { closeServer, serve } from '../../src/api/serve.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Debian's chromium, installed by `npm test`'s pretest step when missing: never skipped silently.
const CHROMIUM = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();

let t: TestApp;
let server: Server;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  server = await serve(t.app, 0);
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' ? address?.port : address}`;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await closeServer(server);
  await t?.close();
});

describe('the API viewer in a real browser', () => {
  it('renders every operation of the document under its own content policy, with nothing refused', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
        refused.push(`${response.status()} ${response.url()}`);
    });
    // The browser reports each thing the policy blocked as this event; the console listener above hears it.
    await page.evaluateOnNewDocument(`
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error('Refused to load ' + event.blockedURI + ' (' + event.violatedDirective + ')'));
    `);
    await page.goto(`${base}/api/docs`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    const shown = await page.$$eval('.opblock', (blocks) => blocks.length);
    const operations = Object.values(openApiDocument().paths).flatMap((methods) => Object.keys(methods));
    expect(shown).toBe(operations.length);
    expect(await page.$eval('.info .title', (title) => title.textContent)).toContain('Tally');
    // An operation opened shows its parameters and answers, rendered by the same scripts.
    await page.click('#operations-Findings-getApiFindings .opblock-summary');
    await page.waitForSelector('#operations-Findings-getApiFindings .parameters');
    const parameters = await page.$$eval('#operations-Findings-getApiFindings .parameter__name', (names) =>
      names.map((name) => name.textContent?.replace(/\W+$/, '').trim()),
    );
    expect(parameters).toContain('sort');
    expect(refused).toEqual([]);
    await page.close();
  }, 60_000);
});
