import type { Express, Request } from 'express';
import { z } from 'zod';
import { describeIssues } from '../src/zodIssues.ts';
import { SimulatorError } from './feeConfigurationStore.ts';
import type { StoredResource } from './resourceStore.ts';
import type { SeedPaymentsOptions } from './seedPayments.ts';

/** The test controls, as `createSimulator` returns them, that `npm run simulator` serves over HTTP. */
export type DevControls = {
  sendPayment(body: unknown): Promise<unknown>;
  putPayment(object: unknown): StoredResource;
  putForwardingRequest(object: unknown): StoredResource;
  dropWebhooks(paymentIds: string[]): void;
  seedPayments(count: number, account: string, options: SeedPaymentsOptions): StoredResource[];
};

const dropSchema = z.object({ payment_ids: z.array(z.string().min(1)).min(1) });
const seedSchema = z.object({
  count: z.number().int().min(1),
  account_id: z.string().min(1),
  created_after: z.iso.datetime({ offset: true }),
  created_before: z.iso.datetime({ offset: true }),
  currency: z.enum(['usd', 'cad']).optional(),
  status: z.string().min(1).optional(),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success)
    throw new SimulatorError(422, 'invalid_parameter', describeIssues(parsed.error, 'body'));
  return parsed.data;
}

// The path names the object; a body naming another id is a mistake in the caller's script.
function withPathId(req: Request) {
  const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
  if (body.id !== undefined && body.id !== req.params.id)
    throw new SimulatorError(422, 'invalid_parameter', 'id: differs from the id in the path');
  return { ...body, id: req.params.id };
}

/**
 * `/dev/…`: unauthenticated controls for a local run and for tests that drive the simulator over HTTP.
 * None of them exists on the real provider.
 */
export function installDevRoutes(app: Express, controls: DevControls) {
  app.post('/dev/payments', async (req, res) => {
    res.json(await controls.sendPayment(req.body ?? {}));
  });
  app.put('/dev/payments/:id', (req, res) => {
    res.json(controls.putPayment(withPathId(req)));
  });
  app.put('/dev/forwarding/requests/:id', (req, res) => {
    res.json(controls.putForwardingRequest(withPathId(req)));
  });
  app.post('/dev/drop-webhooks', (req, res) => {
    const { payment_ids: paymentIds } = parse(dropSchema, req.body);
    controls.dropWebhooks(paymentIds);
    res.json({ dropped_payment_ids: paymentIds });
  });
  app.post('/dev/seed-payments', (req, res) => {
    const body = parse(seedSchema, req.body);
    const seeded = controls.seedPayments(body.count, body.account_id, {
      createdBetween: [new Date(body.created_after), new Date(body.created_before)],
      currency: body.currency,
      status: body.status,
    });
    // Not the payments themselves: 100,000 of them would make a response of tens of megabytes.
    res.json({
      seeded: seeded.length,
      newest_id: seeded.at(-1)?.id ?? null,
      oldest_id: seeded[0]?.id ?? null,
    });
  });
}
