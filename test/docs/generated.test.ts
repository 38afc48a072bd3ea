import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  readSettings,
  renderConfigurationPage,
  renderEnvExample,
} from '../../scripts/docs/configurationDocs.ts';
import { configSchema, loadConfig } from '../../src/config.ts';

const committed = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('generated reference pages', () => {
  it('docs/configuration.md is what `npm run docs` writes from the config schema', () => {
    expect(committed('docs/configuration.md')).toBe(renderConfigurationPage());
  });

  it('.env.example is what `npm run docs` writes from the config schema', () => {
    expect(committed('.env.example')).toBe(renderEnvExample());
  });

  it('documents every setting of the schema with a format and a meaning', () => {
    const settings = readSettings();
    expect(settings.map((setting) => setting.name)).toEqual(Object.keys(configSchema.shape));
    for (const setting of settings) {
      expect(setting.description.length, setting.name).toBeGreaterThan(10);
      expect(setting.format, setting.name).not.toBe('');
    }
  });

  it('states the defaults the schema applies', () => {
    const config = loadConfig({});
    const settings = new Map(readSettings().map((setting) => [setting.name, setting.fallback]));
    expect(settings.get('PORT')).toBe(String(config.PORT));
    expect(settings.get('CAPTURE_ALERT_HOURS')).toBe(config.CAPTURE_ALERT_HOURS.join(','));
    expect(settings.get('PAYOUT_EXPECTED_DAYS')).toBe('cc:3,ach:5');
    expect(settings.get('SCHEDULE_DAILY_REPORT')).toBe(config.SCHEDULE_DAILY_REPORT);
    expect(settings.get('DATABASE_URL')).toBeNull();
  });
});
