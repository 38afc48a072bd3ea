// The fixed-rate load of `npm run bench:ingest` (wrk, which drives the full-load runs, has no fixed rate and
// wrk2 is not in Debian), run as its own process: signed ~1.5 KB payment events, 10 % redeliveries.
//   node bench/ingestLoad.ts URL SECRET SECONDS CONNECTIONS [RATE]
import autocannon from 'autocannon';
import { sign } from '../src/ingest/signature.ts';
import { createBodySource } from './ingestBodies.ts';

const [url, secret, seconds, connections, rate] = process.argv.slice(2);
if (!url || !secret) throw new Error('usage: node bench/ingestLoad.ts URL SECRET SECONDS CONNECTIONS [RATE]');
const body = createBodySource(`${process.pid}_${Date.now()}`);

const result = await autocannon({
  url: `${url}/webhooks`,
  connections: Number(connections ?? 32),
  duration: Number(seconds ?? 20),
  ...(rate ? { overallRate: Number(rate) } : {}),
  requests: [
    {
      method: 'POST',
      setupRequest: (request) => {
        const raw = body();
        const timestamp = String(Math.floor(Date.now() / 1000));
        return {
          ...request,
          body: raw,
          headers: {
            'content-type': 'application/json',
            'justifi-timestamp': timestamp,
            'justifi-signature': sign(secret, timestamp, raw),
          },
        };
      },
    },
  ],
});
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    bodyBytes: Buffer.byteLength(body()),
  })}\n`,
);
