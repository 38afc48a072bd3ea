import { pino } from 'pino';

export type Logger = pino.Logger;

/** The one logger. Children carry `{job, jobId}` or `{eventId}`; secrets and tokens are redacted by path. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.client_secret', '*.access_token'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
