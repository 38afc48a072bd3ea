import { z } from 'zod';
import { crossFieldProblems } from './configChecks.ts';
import {
  commaList,
  cronExpression,
  daysPerPayoutType,
  hoursList,
  integer,
  namedToken,
  optionalCount,
  optionalText,
  timeZoneName,
  webhookSecret,
} from './configFields.ts';
import { ledgerSettings } from './configLedger.ts';
import { FINDING_CODES, SEVERITIES } from './findings/findings.ts';
import { issueLines } from './zodIssues.ts';

export const configSchema = z.object({
  DATABASE_URL: optionalText.meta({
    format: 'Postgres connection string',
    description:
      'Postgres connection string. Unset: `npm start` runs an embedded Postgres under `.data/`; the separate `web`, `worker`, `clock` and `release` processes need it.',
  }),
  DATABASE_READ_URL: optionalText.meta({
    format: 'Postgres connection string',
    description:
      "A streaming replica (hot standby) of `DATABASE_URL`. Set: reports (daily and month-end close), console pages and the API's lag-tolerant reads query it while it is within `READ_MAX_LAG_SECONDS`; webhooks, workflow actions, the worker's projections and `GET /api/status` stay on the primary. Unset: everything reads the primary.",
  }),
  READ_MAX_LAG_SECONDS: integer(30).meta({
    description:
      "Largest replica lag at which reads stay on `DATABASE_READ_URL`; past it, or with the replica unreachable, they go to the primary until it catches up (logged once per change, and in `/metrics`). 30 seconds: Postgres's default `max_standby_streaming_delay`, the pause a standby takes by itself while a long report holds back replay, so a report never sends reads to the primary on its own.",
  }),
  PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3000)
    .meta({ format: 'port (0 to 65535)', description: 'HTTP port of the web process.' }),
  METRICS_PORT: optionalText.pipe(z.coerce.number<string>().int().min(0).max(65535).optional()).meta({
    format: 'port (0 to 65535)',
    description:
      'Set: `GET /metrics` is served on this port only, without a token, for a private scrape network (never publish it), and the main port answers it 404. Unset: `/metrics` is on `PORT` and needs a bearer token of any role (a `metrics` token of `API_TOKENS` reads it and nothing else).',
  }),
  WEBHOOK_SECRETS: commaList.pipe(z.array(webhookSecret)).optional().meta({
    format: 'comma-separated list, each at least 32 characters or a provider signing key (`sigk_…`)',
    description:
      "Webhook signing secrets; a delivery signed with any one is accepted (rotation: add the new one, then remove the old one). Each is at least 32 characters, or one the provider issued (`sigk_` and at least 22 more letters and digits, as the provider's event publisher page shows it). Unset with `DATABASE_URL` (a first deployment, before the provider's publisher exists): `web` starts and answers every delivery `503 webhook_secret_unset`, which the provider retries. Unset without `DATABASE_URL`: `npm start` makes a local one in `.data/webhook-secret`.",
  }),
  WEBHOOK_TOLERANCE_SECONDS: integer(172_800).meta({
    description:
      "Largest accepted difference between `JUSTIFI-TIMESTAMP` and now, either way. 48 hours: wider than the provider's 24-hour retry window, so a legitimate retry is never refused.",
  }),
  API_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()).meta({
    format: 'text, at least 16 characters',
    description:
      'Bearer token for `/api/*` and the console: an admin token named `admin`. With neither it nor `API_TOKENS` set, the API answers 404 `api_disabled`, never open (`npm start` makes a local one in `.data/api-token`).',
  }),
  PROVIDER_BASE_URL: optionalText.pipe(z.url().optional()).meta({
    format: 'URL',
    description:
      "The provider API's base address, for fee configuration sync, the missed-event sweep and the payout sync. The three `PROVIDER_*` credentials are set together or not at all.",
  }),
  PROVIDER_CLIENT_ID: optionalText.meta({
    description:
      'OAuth client id for the provider API. Unset: fee configuration sync, the sweep and the payout sync are off (said once in the log), and fee checks that need configurations count as unverified.',
  }),
  PROVIDER_CLIENT_SECRET: optionalText.meta({ description: 'OAuth client secret for the provider API.' }),
  ALERT_WEBHOOK_URL: optionalText.pipe(z.url().optional()).meta({
    format: 'URL',
    description:
      'Slack-compatible incoming webhook for ops alerts. Unset, with no signed destination either: alerts are logged and listed only.',
  }),
  CAPTURE_ALERT_HOURS: hoursList.default([48, 24, 6]).meta({
    description: 'Hours before a 7-day authorization expires at which to alert.',
  }),
  REPORTS_DIR: optionalText.meta({
    format: 'directory',
    description:
      'Directory reports are also written to (JSON, CSV and HTML). Unset: reports live in the database only.',
  }),
  SCHEDULE_CAPTURE_EXPIRY_SCAN: cronExpression('*/5 * * * *').meta({
    description: 'When the clock runs the capture-expiry scan.',
  }),
  SCHEDULE_FEE_CONFIGURATION_SYNC: cronExpression('0 * * * *').meta({
    description: 'When the clock runs the fee configuration sync, which ends with the comparison report.',
  }),
  BUSINESS_TIME_ZONE: timeZoneName('UTC').meta({
    description:
      'The time zone whose calendar days the daily report, periods and journals count, and in which their schedules run. Days of 23 or 25 hours (daylight saving) are counted exactly. After changing it, run `release` (`npm run migrate`; `npm start` does) so the close’s kept daily sums follow: until then the close reads the rows, with the same result, more slowly.',
  }),
  SCHEDULE_DAILY_REPORT: cronExpression('15 0 * * *', 'BUSINESS_TIME_ZONE').meta({
    description:
      'When the clock builds the daily report for the previous business day (in `BUSINESS_TIME_ZONE`, not UTC).',
  }),
  PROVIDER_SUB_ACCOUNTS: commaList.optional().meta({
    description:
      'Sub accounts to sync and sweep from the first start, before any of their events arrive (accounts seen in events are always included).',
  }),
  SCHEDULE_MISSED_EVENT_SWEEP: cronExpression('*/15 * * * *').meta({
    description: 'When the clock runs the missed-event sweep.',
  }),
  SWEEP_LOOKBACK_HOURS: integer(72).meta({
    description:
      "Every payment created this many hours back is compared with the provider's API on every sweep.",
  }),
  SWEEP_GRACE_MINUTES: integer(30).meta({
    description:
      'A state the API shows that no delivery brought within this many minutes is missed (`event_missed`).',
  }),
  API_TOKENS: commaList.pipe(z.array(namedToken)).optional().meta({
    format: 'comma-separated name:role:token',
    description:
      'Named, scoped API tokens (role `admin`, `read` or `metrics`; token at least 16 characters), e.g. `alice:admin:…,finance:read:…,prometheus:metrics:…`. The name is the actor recorded on finding history; names are unique (`API_TOKEN` is named `admin`). A `read` token sees everything and changes nothing; a `metrics` token reads `GET /metrics` only, never `/api/*` or the console.',
  }),
  RAW_BODY_RETENTION_DAYS: optionalCount('days').meta({
    description:
      'Raw bodies of finished deliveries older than this many days are purged daily; ids, hashes, headers and projections stay. Unset: kept forever.',
  }),
  SCHEDULE_RETENTION_PURGE: cronExpression('30 3 * * *').meta({
    description: 'When the clock runs the retention purge.',
  }),
  CHANGE_RETENTION_DAYS: integer(30).meta({
    description:
      'Changes (`GET /api/changes`) older than this many days are removed hourly; a cursor older than what is kept is answered 410.',
  }),
  ALERT_FINDING_CODES: commaList
    .pipe(
      z.array(
        z.string().refine((code) => (FINDING_CODES as readonly string[]).includes(code), {
          message: `is not a finding code; valid: ${FINDING_CODES.join(', ')}`,
        }),
      ),
    )
    .default(['capture_expiring', 'capture_expired'])
    .meta({
      format: 'comma-separated finding codes',
      description:
        'Finding codes that raise an ops alert when a finding of theirs opens (`dispute_lost` always does). An unknown code stops the process at boot, listing the valid ones.',
    }),
  ALERT_DIGEST_MINUTES: optionalCount('minutes').meta({
    description:
      'Alerts of each window of this many minutes (aligned to the UTC clock) go out as one digest per destination. Unset: one message per alert.',
  }),
  ALERT_SIGNED_WEBHOOK_URL: optionalText.pipe(z.url().optional()).meta({
    format: 'URL',
    description:
      'A second alert destination: plain JSON signed with HMAC-SHA256 under `ALERT_WEBHOOK_SECRET`. Set both or neither.',
  }),
  ALERT_WEBHOOK_SECRET: optionalText
    .pipe(z.string().min(16, 'must be at least 16 characters').optional())
    .meta({
      format: 'text, at least 16 characters',
      description: 'The signing secret of `ALERT_SIGNED_WEBHOOK_URL`.',
    }),
  DISPUTE_ALERT_DAYS: commaList
    .pipe(z.array(z.coerce.number<string>().int().positive()).transform((days) => days.sort((a, b) => b - a)))
    .default([3, 1])
    .meta({
      format: 'comma-separated days',
      description: "Days before an open dispute's `due_date` at which to alert.",
    }),
  SCHEDULE_ALERT_SCAN: cronExpression('* * * * *').meta({
    description: 'When the clock raises finding, dispute-deadline and digest alerts.',
  }),
  SCHEDULE_PAYOUT_SYNC: cronExpression('0 * * * *').meta({
    description: 'When the clock runs the payout sync.',
  }),
  PAYOUT_LOOKBACK_DAYS: integer(35).meta({
    description: 'The payout sync lists payouts created this many days back.',
  }),
  PAYOUT_EXPECTED_DAYS: daysPerPayoutType.default({ cc: 3, ach: 5 }).meta({
    description: 'Calendar days per payout type after which a succeeded payment in no payout is a finding.',
  }),
  PAYOUT_OVERDUE_HOURS: integer(24).meta({
    description: 'A payout not `paid` this many hours after its `deposits_at` is overdue.',
  }),
  BANK_MATCH_DAYS: integer(3).meta({
    description:
      'A bank credit matches a payout with a value date up to this many days after its `deposits_at`.',
  }),
  BANK_PROVIDER_PATTERN: z.string().min(1).default('JUSTIFI').meta({
    format: 'text',
    description: 'Bank credits whose description contains this (case-insensitive) come from the provider.',
  }),
  UPLOAD_DIR: optionalText.meta({
    format: 'directory',
    description:
      'Where uploaded statements are spooled while they are imported (`POST /api/bank-statements`); it must be writable, also in a read-only container (a tmpfs). Unset: the OS temp directory.',
  }),
  DECLINE_ALERT_COUNT: integer(3).meta({
    description: 'More declines of one card than this within 24 hours is `card_declined_repeatedly`.',
  }),
  ...ledgerSettings,
  SCHEDULE_PERIOD_REPORT: cronExpression('30 6 2 * *', 'BUSINESS_TIME_ZONE').meta({
    description:
      "When the clock builds the previous month's period close report (after the provider's 24-hour retry window), and checks closed periods for changes.",
  }),
  FORWARD_CONCURRENCY: integer(16).meta({
    description:
      "Changes sent at once to one subscription's URL, across every worker (docs/changes.md, Forwarding): different objects go out in parallel, each object's changes one after another.",
  }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .meta({ description: 'pino log level (the CLI logs at `warn` unless this is set).' }),
  NODE_ENV: optionalText.meta({
    description:
      "`development` or `test`: the console's session cookie is Secure only on a request that came over HTTPS, so `http://localhost` works. Anything else, or unset: the cookie is always Secure and the console signs in over HTTPS only (the container image sets `production`). `npm start` on its embedded Postgres (no `DATABASE_URL`) runs as `development` unless this is set.",
  }),
  CLOSE_BLOCKING_SEVERITY: z
    .enum([...SEVERITIES, 'none'])
    .default('error')
    .meta({
      description:
        'A period cannot be closed while a finding of this severity or worse whose subject falls in it is open or acknowledged (accepting it with a note lets the close go on). `none`: findings never block a close.',
    }),
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
  const problems = result.success ? [] : issueLines(result.error, 'environment', Number.POSITIVE_INFINITY);
  problems.push(...crossFieldProblems(env));
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(result.data);
}
