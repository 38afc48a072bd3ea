import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createProviderClient, type ProviderClient } from './client.ts';

let cached: { key: string; client: ProviderClient } | null = null;

/** The provider client for this configuration, kept so its access token is reused across runs; null if unset. */
export function providerClientFromConfig(config: Config, log: Logger): ProviderClient | null {
  const {
    PROVIDER_BASE_URL: baseUrl,
    PROVIDER_CLIENT_ID: clientId,
    PROVIDER_CLIENT_SECRET: clientSecret,
  } = config;
  if (!baseUrl || !clientId || !clientSecret) return null;
  const key = `${baseUrl}\n${clientId}\n${clientSecret}`;
  if (cached?.key !== key)
    cached = { key, client: createProviderClient({ baseUrl, clientId, clientSecret, log }) };
  return cached.client;
}
