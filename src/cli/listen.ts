/**
 * `tally listen`: follows a Tally's changes feed and posts each change, signed as forwarding signs it
 * (Standard Webhooks), to a local URL. It needs only the Tally's URL and a read token: no database, no
 * settings of the server.
 */
import { parseArgs } from 'node:util';
import { changeTypePatterns } from '../changes/changeTypes.ts';
import { sendChange } from '../subscriptions/sendChange.ts';
import { newSecret, webhookHeaders } from '../subscriptions/signing.ts';
import { describeIssues } from '../zodIssues.ts';
import { usages } from './usages.ts';

type Change = { id: string; type: string; object_id: string; object_version: number };
type Page = { data: Change[]; page_info: { end_cursor: string | null } };
type Options = { url: URL; token: string; forwardTo: string; types: string[]; from: string };

/** The seconds a feed request holds open waiting for a change (the feed's `wait`, at most 30). */
const WAIT_SECONDS = 25;
const PAGE = 100;

function httpUrl(value: string | undefined, flag: string): URL {
  if (!value) throw new Error(`${flag} is required; usage: ${usages.listen}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${flag} must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${flag} must be an http or https URL`);
  return url;
}

export function parseListenArgs(args: string[]): Options {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      'forward-to': { type: 'string' },
      types: { type: 'string' },
      from: { type: 'string', default: 'now' },
    },
  });
  const url = httpUrl(values.url, '--url');
  const forwardTo = httpUrl(values['forward-to'], '--forward-to').toString();
  if (!values.token)
    throw new Error(`--token is required (a read token of that Tally); usage: ${usages.listen}`);
  const types = (values.types ?? '')
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  const parsed = changeTypePatterns.safeParse(types);
  if (!parsed.success)
    throw new Error(`--types: ${describeIssues(parsed.error, 'types').replace(/^types: /, '')}`);
  if (values.from === '' || /\s/.test(values.from))
    throw new Error('--from must be now or a cursor of GET /api/changes');
  return { url, token: values.token, forwardTo, types: parsed.data, from: values.from };
}

/** A refusal of the feed that retrying cannot fix (a bad token, a cursor past retention). */
class FeedRefused extends Error {}

async function readPage(
  options: Options,
  after: string | null,
  wait: number,
  signal: AbortSignal,
): Promise<Page> {
  const feed = new URL('/api/changes', options.url);
  if (after) feed.searchParams.set('after', after);
  if (options.types.length > 0) feed.searchParams.set('types', options.types.join(','));
  feed.searchParams.set('limit', String(PAGE));
  feed.searchParams.set('wait', String(wait));
  const response = await fetch(feed, {
    headers: { authorization: `Bearer ${options.token}` },
    signal: AbortSignal.any([signal, AbortSignal.timeout((wait + 15) * 1000)]),
  });
  if (response.ok) return (await response.json()) as Page;
  const answer = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
  const message = `${response.status} ${answer?.error?.message ?? response.statusText}`;
  if (response.status >= 400 && response.status < 500 && response.status !== 429)
    throw new FeedRefused(
      response.status === 410
        ? `the cursor is older than the feed keeps (${message}); start again with --from now`
        : message,
    );
  throw new Error(message);
}

// `now`: past every change already in the feed, so only changes made from here on are forwarded.
async function cursorOfNow(options: Options, signal: AbortSignal): Promise<string | null> {
  let cursor: string | null = null;
  for (;;) {
    const page = await readPage(options, cursor, 0, signal);
    cursor = page.page_info.end_cursor ?? cursor;
    if (page.data.length < PAGE) return cursor;
  }
}

export async function listen(args: string[]): Promise<number> {
  const options = parseListenArgs(args);
  const out = process.stdout;
  const secret = newSecret();
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  out.write(`Forwarding changes from ${options.url.origin} to ${options.forwardTo}\n`);
  out.write(`Signing secret (Standard Webhooks; verify each delivery with it): ${secret}\n`);
  let cursor: string | null = null;
  let forwarded = 0;
  let errors = 0;
  try {
    cursor = options.from === 'now' ? await cursorOfNow(options, stopping.signal) : options.from;
    out.write(
      `Waiting for changes${options.types.length ? ` of ${options.types.join(', ')}` : ''}… (Ctrl-C to stop)\n`,
    );
    while (!stopping.signal.aborted) {
      let page: Page;
      try {
        page = await readPage(options, cursor, WAIT_SECONDS, stopping.signal);
        errors = 0;
      } catch (err) {
        if (err instanceof FeedRefused || stopping.signal.aborted) throw err;
        errors += 1;
        out.write(`Tally did not answer (${(err as Error).message}); trying again\n`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** errors, 15_000)));
        continue;
      }
      for (const change of page.data) {
        const body = JSON.stringify(change);
        const result = await sendChange(
          options.forwardTo,
          webhookHeaders([secret], change.id, body, new Date()),
          body,
        );
        forwarded += 1;
        const answer = result.status_code ?? result.error;
        out.write(
          `${new Date().toISOString()}  ${change.id}  ${change.type}  ${change.object_id} v${change.object_version}  → ${answer} (${result.duration_ms} ms)\n`,
        );
      }
      cursor = page.page_info.end_cursor ?? cursor;
    }
  } catch (err) {
    if (!stopping.signal.aborted) {
      process.stderr.write(`tally listen: ${(err as Error).message}\n`);
      return 1;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  out.write(`Stopped after ${forwarded} change(s).${cursor ? ` Resume with --from ${cursor}` : ''}\n`);
  return 0;
}
