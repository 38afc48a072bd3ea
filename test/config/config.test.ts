import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const A = 'whsec_first_secret_0123456789_abcdef';
const B = 'whsec_second_secret_0123456789_abcde';

describe('configuration', () => {
  it('has documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      WEBHOOK_TOLERANCE_SECONDS: 172_800,
      CAPTURE_ALERT_HOURS: [48, 24, 6],
      LOG_LEVEL: 'info',
    });
    expect(config.API_TOKEN).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads the primary unless DATABASE_READ_URL is set; a replica 30 s behind still serves reads', () => {
    const config = loadConfig({});
    expect(config.DATABASE_READ_URL).toBeUndefined();
    expect(config.READ_MAX_LAG_SECONDS).toBe(30);
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://replica/tally' })).toThrow(
      'DATABASE_READ_URL: needs DATABASE_URL',
    );
    expect(() => loadConfig({ READ_MAX_LAG_SECONDS: '0' })).toThrow('READ_MAX_LAG_SECONDS');
  });

  it('splits and trims comma lists', () => {
    const config = loadConfig({ WEBHOOK_SECRETS: ` ${A} , ${B},,`, CAPTURE_ALERT_HOURS: '6, 48,24' });
    expect(config.WEBHOOK_SECRETS).toEqual([A, B]);
    expect(config.CAPTURE_ALERT_HOURS).toEqual([48, 24, 6]);
  });

  it('refuses a webhook secret under 32 characters unless it is a provider signing key (sigk_…)', () => {
    const secrets = (value: string) => () => loadConfig({ WEBHOOK_SECRETS: value });
    expect(secrets('x'.repeat(32))).not.toThrow();
    expect(secrets('sigk_59MIs5qN2tBrsNw6JzIXlU')).not.toThrow();
    for (const weak of ['x'.repeat(31), 'sigk_short', 'sigk_59MIs5qN2tBrsNw6JzIX!', 'justifi-test-key']) {
      expect(secrets(`${A},${weak}`)).toThrow(
        'WEBHOOK_SECRETS.1: must be at least 32 characters, or a provider signing key',
      );
    }
    // The problem never repeats the secret it refuses.
    expect(secrets('sigk_short')).not.toThrow(/sigk_short/);
  });

  it('reports every problem at once, each naming its variable', () => {
    let error: unknown;
    try {
      loadConfig({
        DATABASE_URL: 'postgres://localhost/tally',
        PORT: 'eighty',
        WEBHOOK_TOLERANCE_SECONDS: '-5',
        API_TOKEN: 'short',
        CAPTURE_ALERT_HOURS: '48,soon',
        LOG_LEVEL: 'loud',
        ALERT_WEBHOOK_URL: 'not a url',
        PROVIDER_CLIENT_ID: 'id-only',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).problems.map((problem) => problem.split(':')[0]);
    expect(variables).toEqual(
      expect.arrayContaining([
        'PORT',
        'WEBHOOK_TOLERANCE_SECONDS',
        'API_TOKEN',
        'CAPTURE_ALERT_HOURS.1',
        'LOG_LEVEL',
        'ALERT_WEBHOOK_URL',
      ]),
    );
  });

  it('reads API_TOKENS as named, scoped tokens and never repeats a token in a problem', () => {
    const config = loadConfig({
      API_TOKENS: 'alice:admin:alice-token-0123456789, finance:read:finance-token-0123456789',
    });
    expect(config.API_TOKENS).toEqual([
      { name: 'alice', role: 'admin', token: 'alice-token-0123456789' },
      { name: 'finance', role: 'read', token: 'finance-token-0123456789' },
    ]);
    let error: unknown;
    try {
      loadConfig({
        API_TOKEN: 'the-admin-token-0123456789',
        API_TOKENS: 'admin:read:another-token-0123456789,bob:owner:bob-token-0123456789,carol:read:short',
      });
    } catch (err) {
      error = err;
    }
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'API_TOKENS.1: each entry must be name:admin|read|metrics:token (token ≥ 16 characters)',
      'API_TOKENS.2: each entry must be name:admin|read|metrics:token (token ≥ 16 characters)',
      'API_TOKENS: token names must be unique (API_TOKEN is named admin): admin',
    ]);
    expect(problems.join('\n')).not.toMatch(/token-0123456789|short/);
  });

  it('reads METRICS_PORT and a metrics token, and refuses METRICS_PORT on the main port or out of range', () => {
    const config = loadConfig({
      METRICS_PORT: '9464',
      API_TOKENS: 'prometheus:metrics:prometheus-token-0123456789',
    });
    expect(config.METRICS_PORT).toBe(9464);
    expect(config.API_TOKENS).toEqual([
      { name: 'prometheus', role: 'metrics', token: 'prometheus-token-0123456789' },
    ]);
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ METRICS_PORT: '8080', PORT: '8080' })).toThrow(/METRICS_PORT: must differ/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });

  it('does not require WEBHOOK_SECRETS with DATABASE_URL (a first deployment has none yet); provider credentials go together', () => {
    const env = { DATABASE_URL: 'postgres://localhost/tally', REPORTS_DIR: '/tmp/reports' };
    const config = loadConfig(env);
    expect(config).toMatchObject({ DATABASE_URL: env.DATABASE_URL, REPORTS_DIR: '/tmp/reports' });
    expect(config.WEBHOOK_SECRETS).toBeUndefined();
    let error: unknown;
    try {
      loadConfig({ ...env, PROVIDER_CLIENT_ID: 'x' });
    } catch (err) {
      error = err;
    }
    expect((error as ConfigError).problems).toEqual([
      'PROVIDER_CLIENT_ID: PROVIDER_BASE_URL, PROVIDER_CLIENT_ID, PROVIDER_CLIENT_SECRET are set together or not at all',
    ]);
  });

  it('a process started with bad configuration exits 1 and lists the problems', () => {
    const result = spawnSync(process.execPath, ['src/processes/web.ts'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: 'postgres://localhost/x',
        PORT: 'eighty',
        WEBHOOK_SECRETS: 'short',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('invalid configuration');
    expect(result.stderr).toContain('PORT');
    expect(result.stderr).toContain('WEBHOOK_SECRETS');
  });

  it('reads CLOSE_BLOCKING_SEVERITY (error unless set); an unknown one stops the process at boot, named', () => {
    expect(loadConfig({}).CLOSE_BLOCKING_SEVERITY).toBe('error');
    expect(loadConfig({ CLOSE_BLOCKING_SEVERITY: 'none' }).CLOSE_BLOCKING_SEVERITY).toBe('none');
    expect(loadConfig({ CLOSE_BLOCKING_SEVERITY: 'warning' }).CLOSE_BLOCKING_SEVERITY).toBe('warning');
    const result = spawnSync(process.execPath, ['src/processes/web.ts'], {
      env: { PATH: process.env.PATH, CLOSE_BLOCKING_SEVERITY: 'fatal' },
      encoding: 'utf8',
      // A process's start is slow on a loaded machine; the answer, not the time, is under test.
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('invalid configuration');
    expect(result.stderr).toMatch(/CLOSE_BLOCKING_SEVERITY: .*info.*warning.*error.*none/);
  }, 90_000);
});
