// The configuration's checks across settings, on the raw values, so that they are reported together with the
// per-field problems of src/config.ts.

// WEBHOOK_SECRETS is not among them: a first deployment starts without it, because the provider shows a
// publisher's secret only once the publisher exists, with a URL that answers (web refuses deliveries until then).
export function crossFieldProblems(env: Record<string, string | undefined>): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const problems: string[] = [];
  if (set('DATABASE_READ_URL') && !set('DATABASE_URL')) {
    problems.push(
      'DATABASE_READ_URL: needs DATABASE_URL (a replica of the embedded database is not supported)',
    );
  }
  const names = (env.API_TOKENS ?? '').split(',').map((entry) => entry.trim().split(':')[0]);
  if (set('API_TOKEN')) names.push('admin');
  const repeated = names.filter((name, index) => name && names.indexOf(name) !== index);
  if (repeated.length > 0) {
    problems.push(
      `API_TOKENS: token names must be unique (API_TOKEN is named admin): ${[...new Set(repeated)].join(', ')}`,
    );
  }
  if (
    set('METRICS_PORT') &&
    Number(env.METRICS_PORT) !== 0 &&
    Number(env.METRICS_PORT) === Number(env.PORT?.trim() || 3000)
  ) {
    problems.push('METRICS_PORT: must differ from PORT (the main port never serves /metrics when it is set)');
  }
  const provider = ['PROVIDER_BASE_URL', 'PROVIDER_CLIENT_ID', 'PROVIDER_CLIENT_SECRET'];
  const given = provider.filter(set).length;
  if (given !== 0 && given !== provider.length) {
    problems.push(`PROVIDER_CLIENT_ID: ${provider.join(', ')} are set together or not at all`);
  }
  if (set('ALERT_SIGNED_WEBHOOK_URL') !== set('ALERT_WEBHOOK_SECRET')) {
    problems.push(
      'ALERT_WEBHOOK_SECRET: ALERT_SIGNED_WEBHOOK_URL and ALERT_WEBHOOK_SECRET are set together or not at all',
    );
  }
  return problems;
}
