import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    } catch {
      ticksPerSecond = 100;
    }
    if (!(ticksPerSecond > 0)) ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** Fields of `/proc/<pid>/stat` after the command name, from field 3 (state) on. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system) a running process has used so far. */
export function processCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

/**
 * CPU seconds (user + system) of this process's children that have exited and been waited
 * for: the difference across a child's run is that child's exact total, with no sampling race.
 */
export function reapedChildrenCpuSeconds(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) / clockTicks();
}

/** This process's own CPU seconds (user + system). */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}
