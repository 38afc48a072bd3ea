// The full-load generator of `npm run bench:ingest`: wrk (C, one thread) cycling requests signed before the
// run, so the generator costs far less CPU than the server it drives (autocannon, in Node, which it replaced,
// cost about as much as Tally itself on this 2-core machine). Installs Debian's wrk when it is missing.
import { execFileSync, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { sign } from '../src/ingest/signature.ts';
import { createBodySource } from './ingestBodies.ts';

export type WrkResult = {
  requests: number;
  seconds: number;
  non2xx: number;
  socketErrors: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** The generator's user + system CPU time as a share of the machine's (all cores) during the run. */
  cpuShare: number;
};

export function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    // wrk --version exits 1 after printing; only a missing binary is ENOENT.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
    process.stderr.write('wrk not found: installing it (apt-get install -y wrk)…\n');
    execFileSync('sh', ['-c', 'apt-get install -y wrk || (apt-get update && apt-get install -y wrk)'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
}

/**
 * Writes `count` signed requests (10 % redeliveries) to `file`, one per line. wrk cycles them, so a run
 * that sends more than `count` repeats the list: size it above the expected request count.
 */
export async function writeSignedRequests(file: string, secret: string, count: number): Promise<number> {
  const body = createBodySource(`wrk_${Date.now()}`);
  // Signed now, and the bench finishes well inside the default two-day timestamp tolerance.
  const timestamp = String(Math.floor(Date.now() / 1000));
  const lines: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const raw = body();
    lines.push(`${timestamp}\t${sign(secret, timestamp, raw)}\t${raw}`);
  }
  await writeFile(file, `${lines.join('\n')}\n`);
  return Buffer.byteLength(body());
}

export function runWrk(
  url: string,
  requestsFile: string,
  seconds: number,
  connections: number,
): Promise<WrkResult> {
  const script = path.join(import.meta.dirname, 'ingestWrk.lua');
  const wrkArgs = [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    `${url}/webhooks`,
  ];
  // bash's `times` prints the CPU time of the children it waited for: wrk's own, without a /proc race.
  const command = `wrk "$@" -- '${requestsFile}' && times`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command, 'wrk', ...wrkArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${out}`));
      const json = out.split('\n').find((line) => line.startsWith('{"requests"'));
      const times = out
        .trim()
        .split('\n')
        .at(-1)
        ?.match(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/);
      if (!json || !times) return reject(new Error(`unreadable wrk output: ${out}`));
      const result = JSON.parse(json);
      const cpuSeconds = Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]);
      const wall = result.durationMicros / 1e6;
      resolve({
        requests: result.requests,
        seconds: wall,
        non2xx: result.non2xx,
        socketErrors: result.socketErrors,
        latencyMs: { p50: result.p50 / 1000, p99: result.p99 / 1000, max: result.max / 1000 },
        cpuShare: cpuSeconds / (wall * availableParallelism()),
      });
    });
  });
}
