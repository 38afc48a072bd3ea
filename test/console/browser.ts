import { execFileSync } from 'node:child_process';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

// Debian's chromium, installed by `npm test`'s pretest step when missing: never skipped silently.
const CHROMIUM = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
}

/**
 * Everything that goes wrong in the page from now on, as lines: console errors (a 404 of the browser's own
 * favicon request shows up only here), uncaught exceptions, requests that failed and answers of 400 or more.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error on ${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught on ${page.url()}: ${String(error)}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

/** Signs in through the form with `token`. */
export async function signInWithBrowser(page: Page, base: string, token: string) {
  await page.goto(`${base}/console/sign-in`);
  await page.type('#token', token);
  await Promise.all([page.waitForNavigation(), page.click('form button[type="submit"]')]);
}
