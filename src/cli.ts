import { exportDeliveries, usage as exportUsage } from './cli/export.ts';
import { replayDeliveries, usage as replayUsage } from './cli/replay.ts';
import { reportCommand, usage as reportUsage } from './cli/report.ts';
import { reprocessEvents, usage as reprocessUsage } from './cli/reprocess.ts';

const commands: Record<string, (args: string[]) => Promise<number>> = {
  export: exportDeliveries,
  replay: replayDeliveries,
  reprocess: reprocessEvents,
  report: reportCommand,
};

const help = `usage:\n  ${exportUsage}\n  ${replayUsage}\n  ${reprocessUsage}\n  ${reportUsage}\n`;

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  process.stderr.write(name && name !== '--help' ? `unknown command "${name}"\n${help}` : help);
  process.exit(name === '--help' ? 0 : 2);
}
try {
  process.exitCode = await command(args);
} catch (err) {
  process.stderr.write(`tally ${name}: ${(err as Error).message}\n`);
  process.exitCode = 2;
}
