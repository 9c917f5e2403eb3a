// Opt-in measurement, not a test: with PTC_TEST_CPU_LOG=<file>, each test file appends one
// JSON line with the CPU its jest worker spent on it and the CPU of the child processes it
// started and reaped (sandbox processes, CLI runs, busy loops, esbuild; a daemon such as a
// PostgreSQL server is not reaped by the test and is not counted). Without the variable it
// does nothing. Where the suite's CPU goes, by file: `PTC_TEST_CPU_LOG=/tmp/cpu.jsonl npm run jest`.
import { afterAll, expect } from '@jest/globals';
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const log = process.env.PTC_TEST_CPU_LOG;

/** This process's own and its reaped children's CPU seconds, from /proc/self/stat (Linux). */
function cpuSeconds(): { own: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command's closing parenthesis; utime is field 14, so index 11 here.
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const tick = 100; // USER_HZ on Linux
  const at = (i: number): number => (fields[i] ?? 0) / tick;
  return { own: at(11) + at(12), children: at(13) + at(14) };
}

if (log !== undefined && log !== '') {
  const start = cpuSeconds();
  const started = Date.now();
  afterAll(() => {
    const end = cpuSeconds();
    const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
    const line = {
      file,
      wallS: (Date.now() - started) / 1000,
      workerCpuS: +(end.own - start.own).toFixed(2),
      childCpuS: +(end.children - start.children).toFixed(2),
    };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
