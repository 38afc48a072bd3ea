import cron from 'node-cron';
import { z } from 'zod';
import { isTimeZone } from './domain/days.ts';

// The kinds of value the configuration schema (config.ts) is made of, each with the format its reference page
// names.

export const integer = (fallback: number) =>
  z.coerce.number().int().positive().default(fallback).meta({ format: 'positive whole number' });

export const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  )
  .pipe(z.array(z.string()).min(1, 'needs at least one value'))
  .meta({ format: 'comma-separated list' });

export const hoursList = commaList
  .pipe(z.array(z.coerce.number<string>().positive()).transform((hours) => hours.sort((a, b) => b - a)))
  .meta({ format: 'comma-separated hours' });

export const namedToken = z.string().transform((entry, context) => {
  const match = /^([A-Za-z0-9_.@-]{1,64}):(admin|read|metrics):(.{16,})$/.exec(entry);
  if (!match) {
    // The message never repeats the entry: it holds a secret.
    context.addIssue({
      code: 'custom',
      message: 'each entry must be name:admin|read|metrics:token (token ≥ 16 characters)',
    });
    return z.NEVER;
  }
  return {
    name: match[1] as string,
    role: match[2] as 'admin' | 'read' | 'metrics',
    token: match[3] as string,
  };
});

/** A cron expression; `zone` names the time zone the clock runs it in, for the reference page. */
export const cronExpression = (fallback: string, zone = 'UTC') =>
  z
    .string()
    .default(fallback)
    .refine((value) => cron.validate(value), 'is not a valid cron expression (minute hour day month weekday)')
    .meta({ format: `cron expression (${zone})` });

/** An optional count (days, minutes): a positive whole number, or unset. */
export const optionalCount = (unit: string) =>
  z
    .string()
    .optional()
    .transform((value) => (value?.trim() === '' ? undefined : value?.trim()))
    .pipe(
      z
        .string()
        .regex(/^[1-9]\d*$/, `must be a positive whole number of ${unit}`)
        .transform(Number)
        .optional(),
    )
    .meta({ format: `positive whole number of ${unit}` });

/** `cc:3,ach:5`: calendar days per payout type. */
export const daysPerPayoutType = commaList
  .transform((entries, context) => {
    const days: Record<string, number> = {};
    for (const entry of entries) {
      const match = /^([a-z_]+):([1-9]\d*)$/.exec(entry);
      if (!match) {
        context.addIssue({
          code: 'custom',
          message: `each entry must be type:days (e.g. cc:3), got ${entry}`,
        });
        return z.NEVER;
      }
      days[match[1] as string] = Number(match[2]);
    }
    return days;
  })
  .meta({ format: 'comma-separated type:days' });

export const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value))
  .meta({ format: 'text' });

/** An IANA time zone name (`America/New_York`), checked against the runtime's time zone data. */
export const timeZoneName = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((value) => isTimeZone(value), 'is not a known IANA time zone name (e.g. America/New_York)')
    .meta({ format: 'IANA time zone name' });

// The provider issues signing keys as `sigk_` and 22 random letters and digits (27 characters, about 131 bits);
// any other secret must be 32 characters or more, so that no short hand-made secret guards the webhook.
const PROVIDER_SIGNING_KEY = /^sigk_[A-Za-z0-9]{22,}$/;
export const webhookSecret = z
  .string()
  .refine(
    (secret) => secret.length >= 32 || PROVIDER_SIGNING_KEY.test(secret),
    'must be at least 32 characters, or a provider signing key (sigk_ and at least 22 letters and digits)',
  );
