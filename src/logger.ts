import { pino } from 'pino';
import pretty from 'pino-pretty';
import { redactCardNumbers, redactCardNumbersInText } from './domain/cardNumbers.ts';

export type Logger = pino.Logger;

/**
 * The one logger. Children carry `{job, jobId}` or `{eventId}`; card numbers never reach a line. On a
 * terminal the lines are made readable (pino-pretty, in process so nothing is lost on exit); anywhere else
 * they are JSON for the log pipeline.
 */
export function createLogger(
  level: string,
  destination: pino.DestinationStream | undefined = process.stdout.isTTY
    ? pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
    : undefined,
): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.client_secret', '*.access_token'],
        censor: '[redacted]',
      },
      hooks: {
        logMethod(args, method) {
          return method.apply(this, args.map(redactForLog) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

// Errors are flattened to what pino would print (their message and stack are not enumerable) so they can
// be redacted too; a bare error becomes `{ err }`, as pino itself would log it.
function redactForLog(value: unknown, index: number): unknown {
  if (typeof value === 'string') return redactCardNumbersInText(value);
  if (value instanceof Error) return index === 0 ? { err: flattenError(value) } : flattenError(value);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] = child instanceof Error ? flattenError(child) : redactCardNumbers(child);
  }
  return copy;
}

function flattenError(err: Error): Record<string, unknown> {
  const code = (err as { code?: unknown }).code;
  return redactCardNumbers({
    type: err.name,
    message: err.message,
    ...(code === undefined ? {} : { code }),
    stack: err.stack,
    ...(err.cause instanceof Error ? { cause: flattenError(err.cause) } : {}),
  });
}
