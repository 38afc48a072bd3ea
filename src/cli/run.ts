import type { CliContext } from './context.ts';
import { type CommandName, usages } from './usages.ts';

type Command = (args: string[], context: CliContext) => Promise<number>;

// Only the command asked for is loaded: each pulls its part of src/, and a start that loads them all spends
// most of its time reading modules it never runs.
const commands: Record<Exclude<CommandName, 'listen'>, () => Promise<Command>> = {
  backfill: async () => (await import('./backfill.ts')).backfillHistory,
  export: async () => (await import('./export.ts')).exportDeliveries,
  replay: async () => (await import('./replay.ts')).replayDeliveries,
  reprocess: async () => (await import('./reprocess.ts')).reprocessEvents,
  report: async () => (await import('./report.ts')).reportCommand,
  purge: async () => (await import('./purge.ts')).purgeCommand,
  bank: async () => (await import('./bank.ts')).bankCommand,
  close: async () => (await import('./close.ts')).closeCommand,
};
// Commands that talk to a Tally over HTTP only: they read no configuration, so none can stop them.
const standalone: Record<'listen', () => Promise<(args: string[]) => Promise<number>>> = {
  listen: async () => (await import('./listen.ts')).listen,
};

const help = `usage:\n${Object.values(usages)
  .map((usage) => `  ${usage}\n`)
  .join('')}`;

// `tally help` is what the container entrypoint tells users to run; it is the same request as `--help`.
const helpRequests = new Set(['--help', 'help']);

const known = (table: Record<string, unknown>, name: string | undefined) =>
  name !== undefined && Object.hasOwn(table, name);

/**
 * `tally ARGS...` as src/cli/main.ts runs it, answering the exit code: a function apart from the entry point
 * so the tests can run a command in their own process (test/helpers/cliInProcess.ts) without starting Node.
 */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const [name, ...args] = argv;
  if (known(standalone, name)) {
    const alone = await standalone[name as keyof typeof standalone]();
    return alone(args).catch((err: unknown) => {
      process.stderr.write(`tally ${name}: ${(err as Error).message}\n`);
      return 2;
    });
  }
  if (!known(commands, name)) {
    const asked = name !== undefined && helpRequests.has(name);
    process.stderr.write(name && !asked ? `unknown command "${name}"\n${help}` : help);
    return asked ? 0 : 2;
  }
  const command = await commands[name as keyof typeof commands]();
  // Loaded apart from the commands, and only once one is known: help needs no config.
  const { loadCliContext } = await import('./context.ts');
  try {
    // Parsed once, after the command is known, and every problem listed on failure.
    return await command(args, loadCliContext(env));
  } catch (err) {
    process.stderr.write(`tally ${name}: ${(err as Error).message}\n`);
    return 2;
  }
}
