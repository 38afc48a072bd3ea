// The fixed-rate load of `npm run bench:ingest` and `npm run bench:purge`: an open-loop generator. Requests
// are signed before the run and sent on a fixed schedule, one every 1/RATE s, over CONNECTIONS keep-alive
// connections with one request in flight each. Each latency counts from the request's scheduled time, so an
// answer that holds up later requests counts against them too (no coordinated omission). wrk has no fixed
// rate, wrk2 is not in Debian, and autocannon's rate is a per-second quota: it sent each second's requests
// in one burst at full speed, which measured a saturated server, not one at RATE.
//   node bench/ingestLoad.ts URL SECRET SECONDS CONNECTIONS RATE [timeline]
// With `timeline`, the answer also lists each request as [scheduled time (ms since the epoch), latency (ms)],
// so a caller can take the requests sent while something else ran (bench/yearMigration.ts).
import { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { SIGNATURE_HEADER, sign, TIMESTAMP_HEADER } from '../src/ingest/signature.ts';
import { createBodySource } from './ingestBodies.ts';

const [url, secret, seconds, connections, rate, timelineArgument] = process.argv.slice(2);
if (!url || !secret || !rate)
  throw new Error('usage: node bench/ingestLoad.ts URL SECRET SECONDS CONNECTIONS RATE [timeline]');
const total = Math.round(Number(seconds) * Number(rate));
const intervalMs = 1000 / Number(rate);
const target = new URL(url);

const body = createBodySource(`${process.pid}_${Date.now()}`);
const timestamp = String(Math.floor(Date.now() / 1000));
const requests = Array.from({ length: total }, () => {
  const raw = body();
  const head = [
    'POST /webhooks HTTP/1.1',
    `Host: ${target.host}`,
    'Content-Type: application/json',
    `${TIMESTAMP_HEADER}: ${timestamp}`,
    `${SIGNATURE_HEADER}: ${sign(secret, timestamp, raw)}`,
    `Content-Length: ${Buffer.byteLength(raw)}`,
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${raw}`);
});

type Connection = { socket: Socket; received: Buffer; scheduledAt: number; busy: boolean };
// Used in turn (first in, first out), so no connection idles long enough for the server to close it.
const idle: Connection[] = [];
const due: number[] = [];
let dueHead = 0;
const latencies: number[] = [];
const timeline: [number, number][] = [];
let non2xx = 0;
let socketErrors = 0;
let start = 0;
let finished: () => void = () => {};
const done = new Promise<void>((resolve) => {
  finished = resolve;
});

function send(connection: Connection, index: number): void {
  connection.scheduledAt = start + index * intervalMs;
  connection.busy = true;
  connection.socket.write(requests[index] as Buffer);
}

function sendDue(): void {
  while (dueHead < due.length && idle.length > 0) send(idle.shift() as Connection, due[dueHead++] as number);
}

// One answer per request in flight: its head, then Content-Length bytes of body.
function onData(connection: Connection, chunk: Buffer): void {
  connection.received =
    connection.received.length === 0 ? chunk : Buffer.concat([connection.received, chunk]);
  const headEnd = connection.received.indexOf('\r\n\r\n');
  if (headEnd < 0) return;
  const head = connection.received.subarray(0, headEnd).toString('latin1');
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  if (connection.received.length < headEnd + 4 + length) return;
  connection.received = connection.received.subarray(headEnd + 4 + length);
  // An answer with no request in flight (the server timing out a connection) is no request's.
  if (!connection.busy) return;
  connection.busy = false;
  const latency = performance.now() - connection.scheduledAt;
  latencies.push(latency);
  if (timelineArgument === 'timeline')
    timeline.push([performance.timeOrigin + connection.scheduledAt, latency]);
  if (!head.startsWith('HTTP/1.1 2')) non2xx += 1;
  if (latencies.length + socketErrors >= total) finished();
  idle.push(connection);
  sendDue();
}

function connect(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const connection: Connection = { socket, received: Buffer.alloc(0), scheduledAt: 0, busy: false };
    socket.setNoDelay(true);
    socket.on('data', (chunk) => onData(connection, chunk));
    // A connection lost with a request in flight loses that request; either way another takes its place.
    socket.on('close', () => {
      const index = idle.indexOf(connection);
      if (index >= 0) idle.splice(index, 1);
      if (connection.busy) socketErrors += 1;
      if (latencies.length + socketErrors >= total) finished();
      else if (start > 0) connect().then(sendDue, () => undefined);
    });
    socket.connect(Number(target.port), target.hostname, () => {
      idle.push(connection);
      resolve();
    });
    // Rejects only a failed connect; a later error is followed by 'close', handled above.
    socket.on('error', reject);
  });
}

await Promise.all(Array.from({ length: Number(connections) }, connect));
const cpuBefore = process.cpuUsage();
start = performance.now();
let scheduled = 0;
// Every millisecond, the requests whose time has come; sent at once on idle connections, else as soon as one is.
const ticker = setInterval(() => {
  const now = performance.now();
  while (scheduled < total && start + scheduled * intervalMs <= now) due.push(scheduled++);
  sendDue();
  if (scheduled === total) clearInterval(ticker);
}, 1);
const timeout = setTimeout(finished, (Number(seconds) + 30) * 1000);
await done;
clearTimeout(timeout);
clearInterval(ticker);
const elapsedSeconds = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuBefore);
for (const connection of idle) connection.socket.destroy();

const sorted = latencies.sort((a, b) => a - b);
const percentile = (share: number) =>
  Number((sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0).toFixed(1));
process.stdout.write(
  `${JSON.stringify({
    requests: total,
    ok: latencies.length - non2xx,
    non2xx,
    errors: socketErrors,
    // Requests never answered before the run's deadline.
    timeouts: total - latencies.length - socketErrors,
    seconds: elapsedSeconds,
    latency: { p50: percentile(0.5), p99: percentile(0.99), max: percentile(1) },
    cpuShare: (cpu.user + cpu.system) / 1e6 / (elapsedSeconds * availableParallelism()),
    bodyBytes: Buffer.byteLength(body()),
    ...(timelineArgument === 'timeline' ? { timeline } : {}),
  })}\n`,
);
process.exit(0);
