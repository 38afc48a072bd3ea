import { type Config, loadConfig } from '../config.ts';
import { createLogger, type Logger } from '../logger.ts';

/** What src/cli/main.ts hands every command: the configuration, parsed once, and a logger. */
export type CliContext = { config: Config; log: Logger };

/**
 * The processes' one config schema. Logs go to stderr at `warn` unless LOG_LEVEL says otherwise: stdout carries what the command
 * prints (JSONL, a report, a summary), which a log line would corrupt.
 */
export function loadCliContext(env: Record<string, string | undefined> = process.env): CliContext {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...env });
  return { config, log: createLogger(config.LOG_LEVEL, process.stderr) };
}
