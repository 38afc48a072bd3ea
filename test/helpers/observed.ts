import { readdirSync, readFileSync } from 'node:fs';
import request from 'supertest';
import { expect } from 'vitest';
import { API_TOKEN, startTestApp } from './app.ts';
import { deliver, drain, settle, waitForJobs } from './fixtures.ts';
import { startSimulator } from './simulator.ts';

const DIR = new URL('../fixtures/generated/observed/', import.meta.url);

export type ObservedFixture = { note: string; deliveries: Record<string, unknown>[] };

/** Fixture files written from the shapes docs/webhooks.md lists under "What Tally accepts" (generated, not recorded bytes). */
export function observedFixtureNames(): string[] {
  return readdirSync(DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.replace(/\.json$/, ''));
}

/**
 * The raw bodies of an observed fixture. `{<fee type>}` placeholders in `source_configuration_id` are
 * replaced by the ids a test's provider simulator gave those configurations.
 */
export function observedBodies(name: string, configurationIds: Record<string, string> = {}): string[] {
  const fixture = JSON.parse(readFileSync(new URL(`${name}.json`, DIR), 'utf8')) as ObservedFixture;
  return fixture.deliveries.map((delivery) =>
    JSON.stringify(delivery).replace(/"\{([a-z_]+)\}"/g, (placeholder, feeType: string) =>
      configurationIds[feeType] ? JSON.stringify(configurationIds[feeType]) : placeholder,
    ),
  );
}

export const OBSERVED_ACCOUNT = 'acc_observed';

/**
 * A Tally with the worker, every observed fixture replayed through POST /webhooks, and the fee
 * configurations the fixtures are priced with synced from the provider simulator (the sync reconciles
 * every payment of the account once they are known).
 */
export async function startObservedApp() {
  const provider = await startSimulator();
  const ids: Record<string, string> = {};
  for (const [feeType, variable_rate, transaction_fee_cents, fee_cap_cents] of [
    ['processing_ecomm', 2.9, 30, null],
    ['processing_card_present', 2.6, 10, null],
    ['processing_ach', 0.8, 0, 500],
    ['processing_ach_expedited', 1.5, 0, null],
    ['visa_brand_ecomm', 2.75, 30, null],
    ['platform', 0.5, 0, null],
  ] as const) {
    const created = provider.simulator.store.create(OBSERVED_ACCOUNT, feeType, {
      variable_rate,
      transaction_fee_cents,
      fee_cap_cents,
      effective_start: '2026-10-01T00:00:00.000Z',
    });
    ids[feeType] = created.id;
  }
  const t = await startTestApp({ worker: true, env: provider.env });
  const auth = { Authorization: `Bearer ${API_TOKEN}` };

  /** Runs a scheduled job through the API and waits until it and the work it queued are done. */
  async function runJob(name: string, payload: object = {}) {
    const response = await request(t.app).post(`/api/jobs/${name}`).set(auth).send(payload);
    expect(response.status).toBe(202);
    await waitForJobs(t, [name]);
    await settle(t);
  }

  await deliver(
    t.app,
    observedFixtureNames().flatMap((name) => observedBodies(name, ids)),
  );
  await drain(t);
  await runJob('fee-configuration-sync');
  return {
    t,
    auth,
    runJob,
    close: async () => {
      await t.close();
      await provider.close();
    },
  };
}
