// CPU time of this process's children from /proc (Linux): the sandbox processes and the
// esbuild service apart. Elsewhere every reading is 0.
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICK_MS = 10; // Linux USER_HZ is 100 on every common kernel

/** user + system CPU of a process in ms, from /proc/<pid>/stat (0 where unreadable). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU ms of this process's direct children, sandbox processes and the compiler apart. */
export function childrenCpuMs(): { sandbox: Map<number, number>; compiler: Map<number, number> } {
  const sandbox = new Map<number, number>();
  const compiler = new Map<number, number>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return { sandbox, compiler };
  }
  for (const entry of entries) {
    const pid = Number(entry);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      (command.includes('esbuild') ? compiler : sandbox).set(pid, cpuMs(pid));
    } catch {
      // gone meanwhile
    }
  }
  return { sandbox, compiler };
}

/** CPU ms spent between two readings (processes that started in between count from 0). */
export function spent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** CPU ms this process has used, all its threads. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU ms the calling thread (here: the main thread) has used. */
export function mainThreadCpuMs(): number {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
}
