import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type RecordedDelivery, recordedDeliverySchema } from '../ingest/recorded.ts';
import { SIGNATURE_HEADER, sign, TIMESTAMP_HEADER } from '../ingest/signature.ts';
import { describeIssues } from '../zodIssues.ts';
import { createProgress } from './progress.ts';
import { usages } from './usages.ts';

type Summary = { sent: number; accepted: number; duplicate: number; rejected: number; failed: number };

const ATTEMPTS = 4;

/**
 * Posts recorded deliveries to a Tally (or any) webhook URL, retrying what was not acknowledged. It talks
 * to that URL, never the database, so it takes nothing from the config.
 */
export async function replayDeliveries(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      secret: { type: 'string' },
      resign: { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '8' },
    },
  });
  const concurrency = Number(values.concurrency);
  if (positionals.length === 0) throw new Error(`no files given; usage: ${usages.replay}`);
  if (!values.url) throw new Error(`--url is required; usage: ${usages.replay}`);
  if (values.resign && !values.secret) throw new Error('--resign needs --secret to sign with');
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error('--concurrency must be a positive integer');
  const url = new URL(values.url);
  if (url.pathname === '/') url.pathname = '/webhooks';

  const deliveries = (await Promise.all(positionals.map(readRecorded))).flat();
  const summary: Summary = { sent: 0, accepted: 0, duplicate: 0, rejected: 0, failed: 0 };
  const progress = createProgress(deliveries.length);
  let next = 0;
  const sender = async () => {
    while (next < deliveries.length) {
      const delivery = deliveries[next++] as RecordedDelivery;
      const outcome = await send(url, delivery, values.resign ? values.secret : undefined);
      summary.sent += 1;
      summary[outcome] += 1;
      progress.update(
        summary.sent,
        `accepted ${summary.accepted} duplicate ${summary.duplicate} rejected ${summary.rejected} failed ${summary.failed}`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, deliveries.length) }, sender));
  progress.finish();
  process.stdout.write(
    `sent ${summary.sent}, accepted ${summary.accepted}, duplicate ${summary.duplicate}, rejected ${summary.rejected}, failed ${summary.failed}\n`,
  );
  return summary.rejected + summary.failed === 0 ? 0 : 1;
}

async function readRecorded(file: string): Promise<RecordedDelivery[]> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  return lines.flatMap((line, index) => {
    if (line.trim() === '') return [];
    const parsed = recordedDeliverySchema.safeParse(parseLine(line));
    if (!parsed.success)
      throw new Error(
        `${file}:${index + 1}: not a recorded delivery (${describeIssues(parsed.error, 'line')})`,
      );
    return [parsed.data];
  });
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

// Like the provider: anything but a 2xx/4xx answer is retried with back-off; a 4xx is final.
async function send(
  url: URL,
  delivery: RecordedDelivery,
  secret: string | undefined,
): Promise<keyof Summary> {
  for (let attempt = 1; ; attempt++) {
    const timestamp = secret ? String(Math.floor(Date.now() / 1000)) : delivery.headers[TIMESTAMP_HEADER];
    const signature = secret ? sign(secret, timestamp, delivery.body) : delivery.headers[SIGNATURE_HEADER];
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signature,
      },
      body: delivery.body,
      signal: AbortSignal.timeout(10_000),
    }).catch(() => null);
    if (response && response.status < 500) {
      if (response.status >= 300) return 'rejected';
      const answer = (await response.json().catch(() => ({}))) as { duplicate?: boolean };
      return answer.duplicate === true ? 'duplicate' : 'accepted';
    }
    if (attempt === ATTEMPTS) return 'failed';
    await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
  }
}
