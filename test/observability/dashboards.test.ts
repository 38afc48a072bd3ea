import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/api/metrics.ts';
import { FINDING_CODES } from '../../src/findings/findings.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { StillWaiting, waitFor } from '../helpers/waitFor.ts';

const run = promisify(execFile);
const DASHBOARD = 'ops/grafana/tally.json';
const RULES = 'ops/prometheus/tally-rules.yml';
// Labels Prometheus itself adds to every scraped series.
const SCRAPE_LABELS = new Set(['job', 'instance']);
// Selectors: a metric name, then optional label matchers.
const SELECTOR = /\b((?:tally|process|nodejs)_[a-z0-9_]+|up)\b(?:\{([^}]*)\})?/g;
const MATCHER = /([a-z_]+)\s*(?:=~|!~|!=|=)\s*"([^"]*)"/g;

type Exposed = Map<string, Set<string>>;

/**
 * Every sample name /metrics exposes (a histogram's `_bucket`, `_sum` and `_count`), with the label names its
 * metric declares (`le` too, for a histogram's buckets): a gauge with no sample yet still has its labels.
 */
function parseExposition(text: string, declared: Map<string, string[]>): Exposed {
  const exposed: Exposed = new Map();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const labels = declared.get(name as string) ?? [];
    if (type !== 'histogram') {
      exposed.set(name as string, new Set(labels));
      continue;
    }
    for (const end of ['_sum', '_count']) exposed.set(`${name}${end}`, new Set(labels));
    exposed.set(`${name}_bucket`, new Set([...labels, 'le']));
  }
  return exposed;
}

/** The label names each of Tally's metrics is declared with (prom-client keeps them; its types do not say). */
function declaredLabels(t: TestApp): Map<string, string[]> {
  const metrics = createMetrics(t.pool, t.boss, { reads: t.reads });
  return new Map(
    metrics.registry
      .getMetricsAsArray()
      .map((metric) => [metric.name, (metric as unknown as { labelNames?: string[] }).labelNames ?? []]),
  );
}

/** The PromQL of the dashboard: every `expr`, and the templating queries. */
function dashboardExpressions(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(dashboardExpressions);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    (key === 'expr' || key === 'definition') && typeof value === 'string'
      ? [value]
      : dashboardExpressions(value),
  );
}

/** The `expr` of every rule: one line, or a folded block (`>-`) of the lines indented under it. */
function ruleExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const expressions: string[] = [];
  lines.forEach((line, index) => {
    const match = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!match) return;
    if (match[2] !== '>-') {
      expressions.push(match[2] as string);
      return;
    }
    const block: string[] = [];
    for (const next of lines.slice(index + 1)) {
      if (next.search(/\S/) <= (match[1] as string).length) break;
      block.push(next.trim());
    }
    expressions.push(block.join(' '));
  });
  return expressions;
}

/** Finding codes named by `code` matchers (exact names, or the literal alternatives of a regex). */
function findingCodesIn(expression: string): string[] {
  return [...expression.matchAll(/code\s*=~?\s*"([^"]*)"/g)].flatMap(([, value]) =>
    (value as string).split('|').filter((code) => !code.includes('.*')),
  );
}

describe('the Grafana dashboard and the Prometheus rules', () => {
  let t: TestApp;
  let exposed: Exposed;
  let expressions: { source: string; expr: string }[];
  let findingCodes: Set<string>;

  beforeAll(async () => {
    // A read "replica" that is the primary itself: the replica's metrics are exposed only with
    // DATABASE_READ_URL set, and this one, no standby, shows the fallback (test/db covers a real standby).
    const databaseUrl = await createTestDatabase();
    t = await startTestApp({ databaseUrl, env: { DATABASE_READ_URL: databaseUrl }, lagCheckIntervalMs: 100 });
    await waitFor('the first replica lag check', () => {
      if (!t.reads.replica?.checkedAt) throw new StillWaiting('no check yet');
    });
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as unknown;
    const rules = await readFile(RULES, 'utf8');
    expressions = [
      ...dashboardExpressions(dashboard).map((expr) => ({ source: DASHBOARD, expr })),
      ...ruleExpressions(rules).map((expr) => ({ source: RULES, expr })),
    ];
    findingCodes = new Set(FINDING_CODES);
    // A finding and a waiting delivery, so the gauges that are empty on an empty database have samples.
    await t.pool.query(
      `insert into findings (code, severity, status, subject_type, subject_id, currency, expected, actual, scope,
                             first_seen_at, last_seen_at, at_stake)
       values ('payout_not_in_bank', 'error', 'open', 'payout', 'po_1', 'usd', '1', '2', 'payout:po_1',
               now(), now(), 123456)`,
    );
    expect((await postSigned(t.app, paymentEvent())).status).toBe(200);
    exposed = parseExposition(
      (await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`).expect(200)).text,
      declaredLabels(t),
    );
  });
  afterAll(() => t.close());

  it('both are read: the dashboard has its panels and every rule an expression', () => {
    expect(expressions.filter((e) => e.source === DASHBOARD).length).toBeGreaterThan(30);
    expect(expressions.filter((e) => e.source === RULES).length).toBe(18);
  });

  it('use only metrics /metrics exposes, with labels those metrics carry', () => {
    const problems: string[] = [];
    for (const { source, expr } of expressions) {
      for (const [, name, matchers] of expr.matchAll(SELECTOR)) {
        if (name === 'up') continue;
        const labels = exposed.get(name as string);
        if (!labels) {
          problems.push(`${source}: ${name} is not exposed`);
          continue;
        }
        for (const [, label] of (matchers ?? '').matchAll(MATCHER)) {
          if (!labels.has(label as string) && !SCRAPE_LABELS.has(label as string))
            problems.push(`${source}: ${name} has no label ${label}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('name only finding codes that exist', () => {
    const unknown = expressions
      .flatMap(({ expr }) => findingCodesIn(expr))
      .filter((code) => !findingCodes.has(code));
    expect(findingCodes.size).toBeGreaterThan(30);
    expect(unknown).toEqual([]);
  });

  it('the gauges they read report findings to work, cents at stake, the worker lag and the database', async () => {
    const text = (
      await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`).expect(200)
    ).text;
    expect(text).toContain(
      'tally_findings_open{code="payout_not_in_bank",severity="error",status="open"} 1\n',
    );
    expect(text).toContain(
      'tally_findings_at_stake_cents{code="payout_not_in_bank",currency="usd"} 123456\n',
    );
    expect(text).toContain('tally_database_up 1\n');
    expect(text).toContain('tally_read_replica_fallback 1\n');
    expect(text).toContain('tally_read_replica_fallbacks_total{reason="not_a_standby"} 1\n');
    const lag = Number(/^tally_oldest_received_seconds (\S+)$/m.exec(text)?.[1]);
    expect(lag).toBeGreaterThan(0);
    expect(lag).toBeLessThan(60);
  });

  // promtool ships in Debian's `prometheus` package: npm test's pretest step unpacks it into .cache/promtool
  // when it is not on PATH (scripts/ensure-test-tools.sh); PROMTOOL names another one.
  const promtool =
    process.env.PROMTOOL ??
    [...(process.env.PATH ?? '').split(path.delimiter), '.cache/promtool/usr/bin']
      .map((dir) => path.join(dir, 'promtool'))
      .find((candidate) => existsSync(candidate));

  it('pass promtool check rules and the rules unit tests', async () => {
    expect(promtool, 'promtool: run scripts/ensure-test-tools.sh').toBeDefined();
    const checked = await run(promtool as string, ['check', 'rules', RULES]);
    expect(checked.stdout).toContain('SUCCESS: 18 rules found');
    const tested = await run(promtool as string, ['test', 'rules', 'ops/prometheus/tally-rules.test.yml']);
    expect(tested.stdout).toContain('SUCCESS');
  });
});
