import { useBigintParser } from '../db/pool.ts';
import { backfillHistory, usage as backfillUsage } from './backfill.ts';
import { bankCommand, usage as bankUsage } from './bank.ts';
import { closeCommand, usage as closeUsage } from './close.ts';
import { type CliContext, loadCliContext } from './context.ts';
import { exportDeliveries, usage as exportUsage } from './export.ts';
import { listen, usage as listenUsage } from './listen.ts';
import { purgeCommand, usage as purgeUsage } from './purge.ts';
import { replayDeliveries, usage as replayUsage } from './replay.ts';
import { reportCommand, usage as reportUsage } from './report.ts';
import { reprocessEvents, usage as reprocessUsage } from './reprocess.ts';

const commands: Record<string, (args: string[], context: CliContext) => Promise<number>> = {
  backfill: backfillHistory,
  export: exportDeliveries,
  replay: replayDeliveries,
  reprocess: reprocessEvents,
  report: reportCommand,
  purge: purgeCommand,
  bank: bankCommand,
  close: closeCommand,
};

const help = `usage:\n  ${backfillUsage}\n  ${exportUsage}\n  ${replayUsage}\n  ${reprocessUsage}\n  ${reportUsage}\n  ${purgeUsage}\n  ${bankUsage}\n  ${closeUsage}\n  ${listenUsage}\n`;

// `tally help` is what the container entrypoint tells users to run; it is the same request as `--help`.
const helpRequests = new Set(['--help', 'help']);

useBigintParser();
// Commands that talk to a Tally over HTTP only: they read no configuration, so none can stop them.
const standalone: Record<string, (args: string[]) => Promise<number>> = { listen };

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
const alone = name ? standalone[name] : undefined;
if (alone) {
  process.exitCode = await alone(args).catch((err: unknown) => {
    process.stderr.write(`tally ${name}: ${(err as Error).message}\n`);
    return 2;
  });
} else if (!command) {
  const asked = name !== undefined && helpRequests.has(name);
  process.stderr.write(name && !asked ? `unknown command "${name}"\n${help}` : help);
  process.exit(asked ? 0 : 2);
} else {
  try {
    // Parsed once, after the command is known (help needs no config), and every problem listed on failure.
    process.exitCode = await command(args, loadCliContext());
  } catch (err) {
    process.stderr.write(`tally ${name}: ${(err as Error).message}\n`);
    process.exitCode = 2;
  }
}
