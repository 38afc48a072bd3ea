import type { AddressInfo } from 'node:net';
import { createSimulator } from '../../simulator/server.ts';
import { closeServer, serve } from '../../src/api/serve.ts';

export const PROVIDER_CLIENT = { id: 'test_client_id', secret: 'test_client_secret' };

/** The provider simulator on a real local port, with the env a Tally needs to sync from it. */
export async function startSimulator(now?: () => Date) {
  const simulator = createSimulator({
    clientId: PROVIDER_CLIENT.id,
    clientSecret: PROVIDER_CLIENT.secret,
    now,
  });
  const server = await serve(simulator.app, 0);
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    simulator,
    baseUrl,
    env: {
      PROVIDER_BASE_URL: baseUrl,
      PROVIDER_CLIENT_ID: PROVIDER_CLIENT.id,
      PROVIDER_CLIENT_SECRET: PROVIDER_CLIENT.secret,
    },
    close: () => closeServer(server),
  };
}
