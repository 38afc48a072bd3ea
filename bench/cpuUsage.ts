// CPU accounting for the ingest benchmark, from /proc (Linux): who used the 2 cores during a load run.
import { readdirSync, readFileSync } from 'node:fs';

// /proc times are in clock ticks; USER_HZ is 100 on every Linux Tally is benchmarked on.
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far (0 once it is gone). */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Busy and total CPU seconds of the whole machine so far (all cores). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const cpu =
    readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const total = cpu.reduce((sum, value) => sum + value, 0);
  // idle and iowait are the 4th and 5th columns.
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

/**
 * CPU seconds used so far by a Postgres server: the postmaster's own and those of the backends it has reaped
 * (its children's times, once they exit), plus the live backends'. The difference over a run is what the
 * server spent on it, whatever else the machine runs.
 */
export function postgresCpuSeconds(postmasterPid: number): number {
  let seconds = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields === null) continue;
    if (Number(entry) === postmasterPid) {
      // utime, stime, cutime and cstime are the 12th to 15th fields after the command name.
      seconds +=
        (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) /
        TICKS_PER_SECOND;
    } else if (Number(fields[1]) === postmasterPid) {
      seconds += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    }
  }
  return seconds;
}

function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The postmaster of the server whose data directory is `databaseDir` (its postmaster.pid's first line). */
export function postmasterPidOf(databaseDir: string): number {
  return Number(readFileSync(`${databaseDir}/postmaster.pid`, 'utf8').split('\n')[0]);
}
