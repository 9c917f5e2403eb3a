// Which threads of a process the CPU lanes have demoted, read from /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs';
import { DEMOTED_NICE } from '../../sandbox/cpu-lanes.ts';

/** Threads of process `pid` (this one by default) at the demoted nice value (field 19 of /proc/<pid>/task/<tid>/stat). */
export function demotedThreads(pid: number | 'self' = 'self'): number[] {
  const found: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[16]) === DEMOTED_NICE) found.push(Number(tid));
    } catch {
      // the thread ended meanwhile
    }
  }
  return found;
}
