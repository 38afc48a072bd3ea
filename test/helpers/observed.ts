import { readdirSync, readFileSync } from 'node:fs';

const DIR = new URL('../fixtures/generated/observed/', import.meta.url);

export type ObservedFixture = { note: string; deliveries: Record<string, unknown>[] };

/** Fixture files written from DESIGN.md's observed section (generated, not recorded bytes). */
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
