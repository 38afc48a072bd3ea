import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { deliverAlert } from '../../src/ops/deliverAlert.ts';
import { SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

// A destination that misbehaves by path: redirects, answers with a body far larger than any socket buffer,
// or records what it is sent.
let t: TestApp;
let base: string;
const requested: string[] = [];
const received: string[] = [];
let bigAnswer: ServerResponse | null = null;
const server = createServer((req, res) => {
  requested.push(req.url ?? '');
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.url === '/redirect') {
      res.writeHead(307, { location: `${base}/elsewhere` }).end();
      return;
    }
    if (req.url === '/big') {
      bigAnswer = res;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(16 * 1024 * 1024, 'x'));
      return;
    }
    received.push(body);
    res.end('ok');
  });
});

beforeAll(async () => {
  t = await startTestApp();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});
beforeEach(async () => {
  await t.pool.query('truncate alerts cascade');
  requested.length = 0;
  received.length = 0;
  bigAnswer = null;
});

/** Stores a finding alert whose subject id, taken from a delivery, is Slack markup. */
async function storeAlert(subjectId: string): Promise<number> {
  const payload = {
    finding_id: 1,
    code: 'fee_total_mismatch',
    severity: 'error',
    subject_type: 'payment',
    subject_id: subjectId,
    account_id: 'acc_1',
    currency: 'usd',
    expected: 1000,
    actual: 1250,
    at_stake: 250,
    details: {},
    console_path: '/console/findings/1',
  };
  const { rows } = await t.pool.query(
    `insert into alerts (dedupe_key, kind, subject_id, account_id, payload, status, created_at)
     values ($1, 'fee_total_mismatch', $2, 'acc_1', $3, 'pending', now()) returning id`,
    [`finding:${subjectId}`, subjectId, payload],
  );
  return rows[0].id;
}

const send = (path: string, alertId: number) =>
  deliverAlert(
    {
      ...t,
      config: loadConfig({
        DATABASE_URL: t.databaseUrl,
        WEBHOOK_SECRETS: SECRETS.join(','),
        ALERT_WEBHOOK_URL: `${base}${path}`,
      }),
    },
    alertId,
  );

describe('delivering an alert', () => {
  it('never follows a redirect: the alert fails, naming it, and the other address is never asked', async () => {
    const id = await storeAlert('py_redirect');
    await expect(send('/redirect', id)).rejects.toThrow(/slack \(network error: fetch failed: .*redirect/);
    expect(requested).toEqual(['/redirect']);
    const { rows } = await t.pool.query('select status, deliveries from alerts where id = $1', [id]);
    expect(rows[0].status).toBe('failed');
    expect(rows[0].deliveries.slack.last_error).toMatch(/redirect/);
  });

  it("cancels the destination's answer instead of leaving it unread: the answer ends at once", async () => {
    const id = await storeAlert('py_big_answer');
    await send('/big', id);
    const answer = bigAnswer as ServerResponse | null;
    expect(answer).not.toBeNull();
    // 16 MiB cannot sit in socket buffers: the answer ends only when the alert sender reads or drops it.
    await waitFor('the big answer to be closed', () => until(answer?.closed === true, 'still open'), {
      timeoutMs: 1_000,
      intervalMs: 20,
    });
  });

  it('escapes &, < and > in the Slack text and fields, and keeps the plain value for tools', async () => {
    const subject = 'py_<!channel> & <https://evil.example|click>';
    const id = await storeAlert(subject);
    await send('/slack', id);
    const message = JSON.parse(received[0] as string);
    expect(message.text).toBe(
      'Finding fee_total_mismatch (error) opened on payment py_&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;: 2.50 USD at stake. Console: /console/findings/1',
    );
    expect(message.attachments[0].fields).toContainEqual({
      title: 'Subject',
      value: 'payment py_&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;',
      short: true,
    });
    expect(JSON.stringify(message.attachments)).not.toMatch(/[<>]/);
    expect(message.tally.subject_id).toBe(subject);
    expect(t.logLines.join('')).toContain('opened on payment py_<!channel> & <https://evil.example|click>');
  });
});
