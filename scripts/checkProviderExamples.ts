/**
 * `npm run check:provider-examples -- FILE`: replays the provider's published payloads through a running
 * Tally (its own throwaway one unless --url is given) and reports which ended processed and why others did not.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseEnvelope } from '../src/ingest/envelope.ts';
import { SIGNATURE_HEADER, sign, TIMESTAMP_HEADER } from '../src/ingest/signature.ts';
import { type Example, type Planned, parseJson, planDelivery } from './providerExampleDeliveries.ts';
import { startOwnTally, type Target } from './throwawayTally.ts';

const USAGE = `usage: npm run check:provider-examples -- FILE [--url URL --secret S --token T] [--timeout SECONDS]
Replays every payload of FILE (lines {source, kind, event_name, body}) through POST /webhooks, signed, and
reports how each ended. Without --url it runs its own Tally on a throwaway embedded Postgres.`;

// What POST /webhooks and GET /api/events/:id answer (docs/webhooks.md, docs/http-api.md), as far as this check reads it.
type WebhookAnswer = { event_id?: unknown; duplicate?: unknown; error?: { code?: unknown } };
type EventAnswer = { data: { status: string; error: string | null; conflicts?: { body_sha256: string }[] } };
type Posted = { status: number; eventId: string | null; duplicate: boolean; problem: string };
type Stored = { status: string; error: string | null; conflictHashes: string[] };
type Verdict = { text: string; category: string; fails: boolean };

// Tally's failure reasons name the field; these phrasings mean the field was absent (a docs fragment).
const MISSING_FIELD = /received undefined|\brequired\b|\bmissing\b/i;

async function post(target: Target, body: string): Promise<Posted> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  try {
    const response = await fetch(`${target.url}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: sign(target.secret, timestamp, body),
      },
      body,
    });
    const answer = (await response.json().catch(() => null)) as WebhookAnswer | null;
    return {
      status: response.status,
      eventId: typeof answer?.event_id === 'string' ? answer.event_id : null,
      duplicate: answer?.duplicate === true,
      // Tally's error code (e.g. signature_invalid), never anything from the payload.
      problem: typeof answer?.error?.code === 'string' ? answer.error.code : '',
    };
  } catch (err) {
    return { status: 0, eventId: null, duplicate: false, problem: (err as Error).message };
  }
}

async function readStored(target: Target, eventId: string): Promise<Stored | null> {
  const response = await fetch(`${target.url}/api/events/${encodeURIComponent(eventId)}`, {
    headers: { authorization: `Bearer ${target.token}` },
  });
  if (response.status === 404) return null;
  if (!response.ok) {
    const hint = response.status === 401 ? ' (check --token)' : '';
    throw new Error(`GET /api/events/:id answered ${response.status}${hint}`);
  }
  const { data } = (await response.json()) as EventAnswer;
  const conflictHashes = (data.conflicts ?? []).map((conflict) => conflict.body_sha256);
  return { status: data.status, error: data.error, conflictHashes };
}

/** Polls each delivery until none is still `received` (processing is asynchronous) or time runs out. */
async function waitForProcessing(target: Target, eventIds: string[], timeoutMs: number) {
  const stored = new Map<string, Stored | null>();
  const started = Date.now();
  let pending = eventIds;
  for (;;) {
    for (let i = 0; i < pending.length; i += 8) {
      const slice = pending.slice(i, i + 8);
      await Promise.all(slice.map(async (id) => stored.set(id, await readStored(target, id))));
    }
    pending = eventIds.filter((id) => stored.get(id)?.status === 'received');
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stderr.write(
      `waiting: ${pending.length} of ${eventIds.length} deliveries still received (${seconds} s)\n`,
    );
    if (pending.length === 0 || Date.now() - started > timeoutMs) return stored;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function verdictOf(planned: Planned, posted: Posted | undefined, stored: Stored | null | undefined): Verdict {
  if (planned.skipped || !posted || planned.body === undefined) {
    return { text: `skipped: ${planned.skipped}`, category: `skipped (${planned.skipped})`, fails: false };
  }
  if (posted.status === 0)
    return { text: `not delivered: ${posted.problem}`, category: 'not delivered', fails: true };
  if (posted.status !== 200) {
    const code = posted.problem ? ` (${posted.problem})` : '';
    return { text: `rejected ${posted.status}${code}`, category: 'rejected', fails: true };
  }
  if (posted.eventId === null) {
    // Quarantined rows have no event id to look up; Tally's own envelope check gives the same reason.
    const check = parseEnvelope(JSON.parse(planned.body), planned.body);
    const reason = check.ok ? 'reason unknown' : check.reason;
    if (planned.missing.length > 0) {
      const text = `quarantined (incomplete fragment): ${reason}`;
      return { text, category: 'quarantined (incomplete fragment)', fails: false };
    }
    return { text: `quarantined: ${reason}`, category: 'quarantined', fails: true };
  }
  if (!stored) return { text: 'not found by GET /api/events/:id after a 200', category: 'lost', fails: true };
  const sha256 = createHash('sha256').update(planned.body).digest('hex');
  if (stored.conflictHashes.includes(sha256)) {
    // The file reuses example event ids; by contract Tally processes the first body and keeps this one aside.
    const text =
      'not checked: its event id was already delivered with another body (kept aside as a conflict)';
    return { text, category: 'conflict (not checked)', fails: false };
  }
  const duplicate = posted.duplicate ? ' (duplicate delivery)' : '';
  if (stored.status === 'processed')
    return { text: `processed${duplicate}`, category: 'processed', fails: false };
  if (stored.status === 'failed') {
    const error = stored.error ?? 'no reason recorded';
    // A fragment only when every problem listed is an absent field: `bnpl` beside a missing `currency` still fails.
    const problems = error.replace(/^invalid data: /, '').split('; ');
    if (problems.every((problem) => MISSING_FIELD.test(problem))) {
      return {
        text: `failed (incomplete fragment): ${error}`,
        category: 'failed (incomplete fragment)',
        fails: false,
      };
    }
    return { text: `failed: ${error}`, category: 'failed', fails: true };
  }
  if (stored.status === 'received')
    return { text: 'timed out: still received', category: 'timed out', fails: true };
  return { text: `unexpected status ${stored.status}`, category: 'unexpected', fails: true };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      secret: { type: 'string' },
      token: { type: 'string' },
      timeout: { type: 'string', default: '120' },
    },
  });
  const timeoutSeconds = Number(values.timeout);
  const external = values.url !== undefined;
  if (positionals.length !== 1 || !(timeoutSeconds > 0) || (external && (!values.secret || !values.token))) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const lines = (await readFile(String(positionals[0]), 'utf8')).split('\n');
  // A reused instance keeps earlier runs' events: a per-run suffix keeps this run's ids fresh.
  const idSuffix = external ? `_${randomBytes(4).toString('hex')}` : '';
  const planned = lines.flatMap((text, index) => {
    if (text.trim() === '') return [];
    const example = parseJson(text);
    if (typeof example !== 'object' || example === null)
      throw new Error(`line ${index + 1} is not a JSON object`);
    return [planDelivery(example as Example, index + 1, idSuffix)];
  });

  // Ctrl-C still removes the throwaway Tally, even mid-start; a second signal leaves at once.
  let own: Awaited<ReturnType<typeof startOwnTally>> | null = null;
  const stopOnSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write('interrupted: stopping\n');
    if (own) void own.stop().finally(() => process.exit(130));
  };
  process.on('SIGINT', stopOnSignal);
  process.on('SIGTERM', stopOnSignal);
  own = external ? null : await startOwnTally();
  if (interrupted) {
    await own?.stop();
    process.exit(130);
  }
  const target = own?.target ?? {
    url: String(values.url)
      .replace(/\/+$/, '')
      .replace(/\/webhooks$/, ''),
    secret: String(values.secret),
    token: String(values.token),
  };
  try {
    const posted = new Map<Planned, Posted>();
    for (const item of planned) if (item.body !== undefined) posted.set(item, await post(target, item.body));
    process.stderr.write(`posted ${posted.size} deliveries\n`);
    const eventIds = [...new Set([...posted.values()].flatMap((p) => (p.eventId ? [p.eventId] : [])))];
    const stored = await waitForProcessing(target, eventIds, timeoutSeconds * 1000);

    const counts = new Map<string, number>();
    let failing = 0;
    for (const item of planned) {
      const answer = posted.get(item);
      const verdict = verdictOf(item, answer, answer?.eventId ? stored.get(answer.eventId) : undefined);
      counts.set(verdict.category, (counts.get(verdict.category) ?? 0) + 1);
      if (verdict.fails) failing += 1;
      process.stdout.write(`#${item.line} ${item.label}: ${verdict.text}  [${item.source}]\n`);
    }
    const categories = new Set(['processed', 'failed', ...[...counts.keys()].sort()]);
    const summary = [...categories].map((category) => `${category} ${counts.get(category) ?? 0}`);
    process.stdout.write(`\n${planned.length} payloads: ${summary.join(', ')}\n`);
    process.stdout.write(
      failing === 0 ? 'result: ok\n' : `result: ${failing} payloads did not end as expected\n`,
    );
    return failing === 0 ? 0 : 1;
  } finally {
    await own?.stop();
  }
}

let interrupted = false;

main().then(
  (code) => {
    if (!interrupted) process.exit(code);
  },
  (err: unknown) => {
    if (interrupted) return;
    // Only the message: a stack here would be about this script, not about the payloads.
    process.stderr.write(
      `check:provider-examples failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  },
);
