import { useBigintParser } from '../db/pool.ts';
import { runCli } from './run.ts';

useBigintParser();

process.exitCode = await runCli(process.argv.slice(2));
