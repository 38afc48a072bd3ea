import { z } from 'zod';
import { readWebhookBody } from '../../ingest/webhookHandler.ts';
import * as schemas from '../openapi/responses.ts';
import { ok, refused, route } from './route.ts';

/**
 * `POST /webhooks` in Express: the path tests drive with supertest, and every variant the web listener passes
 * on (`createWebListener`). The handler reads and verifies the raw body itself.
 */
export const webhookRoute = route({
  method: 'post',
  path: '/webhooks',
  tag: 'Webhooks',
  auth: 'none',
  summary: 'Receive a signed delivery from the provider',
  description:
    'The raw body is verified against `WEBHOOK_SECRETS` (HMAC-SHA256 of `timestamp.body`), stored once, and acknowledged; processing happens later. Up to 1 MiB.',
  headers: z.object({ 'justifi-timestamp': z.string(), 'justifi-signature': z.string() }),
  body: { required: true, content: { 'application/json': z.record(z.string(), z.unknown()) } },
  answers: {
    ...ok('Stored, or already stored (`duplicate`).', schemas.webhookAckSchema),
    400: refused('The body is not UTF-8 JSON, or was not completely received.'),
    401: refused('Missing, stale or wrong signature.'),
    413: refused('The body exceeds 1 MiB.'),
    415: refused('Unsupported content encoding.'),
    503: refused(
      'Not stored: the database is unavailable (`storage_unavailable`), or `WEBHOOK_SECRETS` is not set yet (`webhook_secret_unset`). Retry later.',
    ),
  },
  handler: (deps) => (req, res, _input) =>
    new Promise<void>((resolve, reject) => {
      readWebhookBody(req, res, (err) => {
        if (err) reject(err);
        else deps.handleWebhook(req, res).then(resolve, reject);
      });
    }),
});
