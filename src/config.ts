import { z } from 'zod';

const integer = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  )
  .pipe(z.array(z.string()).min(1, 'needs at least one value'));

const hoursList = commaList.pipe(z.array(z.coerce.number<string>().positive()).transform((hours) => hours.sort((a, b) => b - a)));

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

export const configSchema = z
  .object({
    /** Postgres connection string. Unset: `npm start` runs an embedded Postgres under `.data/`. */
    DATABASE_URL: optionalText,
    /** HTTP port of the web process. */
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Comma-separated webhook signing secrets; any one verifies (rotation). Required with DATABASE_URL. */
    WEBHOOK_SECRETS: commaList.optional(),
    /** Accepted age of JUSTIFI-TIMESTAMP, both ways. 48 h: wider than the provider's 24 h retry window. */
    WEBHOOK_TOLERANCE_SECONDS: integer(172_800),
    /** Bearer token for /api/*. Unset: the API answers 404 (disabled), never open. */
    API_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    /** Provider API base address for fee configuration sync. */
    PROVIDER_BASE_URL: optionalText.pipe(z.url().optional()),
    /** OAuth client id for the provider API. Unset: fee configuration sync is disabled. */
    PROVIDER_CLIENT_ID: optionalText,
    /** OAuth client secret for the provider API. */
    PROVIDER_CLIENT_SECRET: optionalText,
    /** Slack-compatible incoming webhook for ops alerts. Unset: alerts are logged and listed only. */
    ALERT_WEBHOOK_URL: optionalText.pipe(z.url().optional()),
    /** Hours before a 7-day authorization expires at which to alert, comma separated. */
    CAPTURE_ALERT_HOURS: hoursList.default([48, 24, 6]),
    /** Directory reports are also written to. Unset: reports live in the database only. */
    REPORTS_DIR: optionalText,
    /** pino level. */
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((config, ctx) => {
    if (config.DATABASE_URL !== undefined && config.WEBHOOK_SECRETS === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SECRETS'],
        message: 'is required when DATABASE_URL is set',
      });
    }
    const credentials = [config.PROVIDER_CLIENT_ID, config.PROVIDER_CLIENT_SECRET, config.PROVIDER_BASE_URL];
    const given = credentials.filter((value) => value !== undefined).length;
    if (given !== 0 && given !== credentials.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['PROVIDER_CLIENT_ID'],
        message: 'PROVIDER_BASE_URL, PROVIDER_CLIENT_ID and PROVIDER_CLIENT_SECRET are set together or not at all',
      });
    }
  });

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.problems = problems;
  }
}

/** Parses the environment once; every problem is reported, each naming its variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
    );
  }
  return Object.freeze(result.data);
}
