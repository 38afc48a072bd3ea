import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { startProxy } from '../helpers/proxy.ts';

let t: TestApp;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  proxy = await startProxy(databaseUrl);
  // Only the app's pool goes through the proxy; the test reads the database directly.
  t = await startTestApp({ databaseUrl, poolUrl: proxy.url() });
});
afterAll(async () => {
  await proxy.restore();
  await t.close();
});

it('answers 503 while the database is unreachable, never 200, and stores the retried delivery after', async () => {
  const event = paymentEvent();
  await proxy.cut();

  const during = await postSigned(t.app, event);
  expect(during.status).toBe(503);
  expect(during.body).toEqual({
    error: { code: 'storage_unavailable', message: 'delivery not stored; retry later' },
  });
  expect(JSON.stringify(during.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
  expect((await request(t.app).get('/readyz')).status).toBe(503);
  expect((await request(t.app).get('/healthz')).status).toBe(200);

  await proxy.restore();
  const retried = await postSigned(t.app, event);
  expect(retried.status).toBe(200);
  expect(retried.body.duplicate).toBe(false);
  expect((await request(t.app).get('/readyz')).status).toBe(200);
  const stored = await t.boss.getDb().executeSql('select event_id from events');
  expect(stored.rows).toEqual([{ event_id: event.id }]);
});
