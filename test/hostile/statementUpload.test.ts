import { once } from 'node:events';
import { mkdtemp, readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BANK_ENV, postStatement } from '../bank/helpers.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';

// The upload limit, made small here; the real one is 256 MiB (statement.ts MAX_STATEMENT_BYTES).
const MAX_BYTES = 64 * 1024;
const TOO_LARGE = {
  error: { code: 'payload_too_large', message: `a statement is at most ${MAX_BYTES} bytes` },
};

let t: TestApp;
let uploads: string;
let server: Server;
let url: string;
beforeAll(async () => {
  uploads = await mkdtemp(path.join(tmpdir(), 'tally-uploads-'));
  t = await startTestApp({
    env: { ...BANK_ENV, UPLOAD_DIR: uploads },
    statementLimits: { maxBytes: MAX_BYTES },
  });
  server = createServer(t.app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/bank-statements?format=csv`;
});
afterAll(async () => {
  server?.close();
  await t?.close();
});

// A CSV of exactly `bytes` bytes, whole lines: the last line's description pads it out.
const csvOf = (bytes: number) => {
  const header = 'Date,Amount,Currency,Description,Reference\n';
  const line = (description: string) => `2026-03-02,12.30,USD,${description},R1\n`;
  const lines = Math.floor((bytes - header.length) / line('Transfer').length) - 1;
  const start = header + line('Transfer').repeat(lines);
  const last = line('');
  return Buffer.from(start + line('x'.repeat(bytes - start.length - last.length)));
};

describe('a statement over the upload limit', () => {
  it('one byte over, with its length declared, is answered 413 in the API error shape', async () => {
    const response = await postStatement(t, 'csv', csvOf(MAX_BYTES + 1));
    expect(response.status).toBe(413);
    expect(response.body).toEqual(TOO_LARGE);
  });

  it('sent in chunks with no declared length, it is answered 413 once it passes the limit, not reset', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    let sent = 0;
    // 8 MB: far more than the socket buffers hold, so a server that reset the connection would be seen.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length;
        if (sent > 8 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'text/csv' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual(TOO_LARGE);
    expect(await readdir(uploads)).toEqual([]);
  });

  it('a statement of exactly the limit is imported', async () => {
    const file = csvOf(MAX_BYTES);
    expect(file.length).toBe(MAX_BYTES);
    const response = await postStatement(t, 'csv', file);
    expect(response.status).toBe(201);
    expect(response.body.data.lines).toBeGreaterThan(1_000);
  });
});
