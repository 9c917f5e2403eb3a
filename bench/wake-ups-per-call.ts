// How many times each thread sleeps and is woken per sequential nested call, through the
// real runtime: voluntary context switches (a thread blocked in read(), epoll_wait or a
// futex, then woken) and involuntary ones (preempted), per thread of the host and of the
// sandbox process, from /proc/<pid>/task/*/status before and after the 1,000-call program.
//   node --no-node-snapshot --conditions=ptc-source bench/wake-ups-per-call.ts [process|in-process] [rounds]
// Threads are grouped by name: the process's own thread is "main thread"; V8's helpers
// are "V8Worker"; a thread Node did not name inherits its creator's name, so isolated-vm's
// threads (where isolates run) show as "MainThread", reported as "isolate threads".
import { readdirSync, readFileSync } from 'node:fs';
import { createBenchRuntime, type Isolation } from './bench-runtime.ts';
import { NESTED_CALLS, NESTED_CALLS_PROGRAM } from './bench-programs.ts';
import { summarize } from './stats.ts';

interface Switches {
  readonly voluntary: number;
  readonly involuntary: number;
}

/** Context switches of every thread of `pid`, keyed "<role> <thread name>" (tid apart for the main thread). */
function threadSwitches(pid: number, role: string): Map<string, Switches> {
  const out = new Map<string, Switches>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const field = (name: string): string => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1] ?? '';
      const named = field('Name');
      const name = Number(tid) === pid ? 'main thread' : named === 'MainThread' ? 'isolate threads' : named;
      const key = `${role} ${name}`;
      const was = out.get(key) ?? { voluntary: 0, involuntary: 0 };
      out.set(key, {
        voluntary: was.voluntary + Number(field('voluntary_ctxt_switches')),
        involuntary: was.involuntary + Number(field('nonvoluntary_ctxt_switches')),
      });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

function readAll(childPid: number | undefined): Map<string, Switches> {
  const all = threadSwitches(process.pid, 'host');
  if (childPid !== undefined) for (const [k, v] of threadSwitches(childPid, 'sandbox process')) all.set(k, v);
  return all;
}

if (import.meta.main) {
  const isolation = (process.argv[2] ?? 'process') as Isolation;
  const rounds = Number(process.argv[3] ?? 5);
  const bench = createBenchRuntime({ isolation });
  try {
    for (let i = 0; i < 3; i += 1) await bench.runCode(NESTED_CALLS_PROGRAM); // warm-up
    const perCall = new Map<string, { voluntary: number[]; involuntary: number[] }>();
    const wall: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const before = readAll(bench.childPid());
      const start = performance.now();
      await bench.runCode(NESTED_CALLS_PROGRAM);
      wall.push(((performance.now() - start) * 1000) / NESTED_CALLS);
      const after = readAll(bench.childPid());
      for (const [key, end] of after) {
        const begin = before.get(key) ?? { voluntary: 0, involuntary: 0 };
        const entry = perCall.get(key) ?? { voluntary: [], involuntary: [] };
        entry.voluntary.push((end.voluntary - begin.voluntary) / NESTED_CALLS);
        entry.involuntary.push((end.involuntary - begin.involuntary) / NESTED_CALLS);
        perCall.set(key, entry);
      }
    }
    console.log(
      `${isolation}: ${rounds} runs of ${NESTED_CALLS} sequential calls, p50 ${summarize(wall).p50.toFixed(1)} µs per call (the run's start included)`,
    );
    console.log(`${'thread'.padEnd(40)} voluntary / involuntary switches per call (p50 of the runs)`);
    let voluntaryTotal = 0;
    for (const [key, { voluntary, involuntary }] of [...perCall].sort()) {
      const v = summarize(voluntary).p50;
      const inv = summarize(involuntary).p50;
      if (v < 0.01 && inv < 0.01) continue;
      voluntaryTotal += v;
      console.log(`${key.padEnd(40)} ${v.toFixed(2).padStart(6)} / ${inv.toFixed(2)}`);
    }
    console.log(`${'all threads'.padEnd(40)} ${voluntaryTotal.toFixed(2).padStart(6)} voluntary`);
  } finally {
    await bench.close();
  }
}
