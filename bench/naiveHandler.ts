// The baseline of `npm run bench:ingest`: the webhook handler most services start with. express 5, the raw
// body, an HMAC check, JSON.parse, and one single-row INSERT … ON CONFLICT DO NOTHING of the parsed body per
// request from a pool of 20. Run as its own process, like a role: DATABASE_URL, WEBHOOK_SECRETS, PORT.
import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
await pool.query(
  'create table if not exists naive_events (id text primary key, body jsonb not null, received_at timestamptz not null)',
);
const secret = process.env.WEBHOOK_SECRETS ?? '';
const app = express();
app.post('/webhooks', express.raw({ type: '*/*', limit: '1mb' }), async (req, res) => {
  const timestamp = req.get('justifi-timestamp') ?? '';
  const given = Buffer.from(req.get('justifi-signature') ?? '', 'hex');
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(req.body).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    res.status(401).end();
    return;
  }
  const event = JSON.parse(req.body.toString('utf8'));
  await pool.query(
    'insert into naive_events (id, body, received_at) values ($1, $2, now()) on conflict do nothing',
    [event.id, event],
  );
  res.status(200).json({ received: true });
});
const server = app.listen(Number(process.env.PORT), () => console.log('"web listening"'));
process.on('SIGTERM', () => server.close(() => pool.end()));
