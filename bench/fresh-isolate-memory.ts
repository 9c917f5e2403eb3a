// A bare fresh isolate (new Isolate + context + eval, 50 kept alive), CPU each, in this
// fresh process: on fresh memory, or after 50 isolates were made and disposed first (their
// memory is then reused). A cold burst of runs prepares every isolate on fresh memory.
//   node --no-node-snapshot bench/fresh-isolate-memory.ts [fresh|reused]
import { readFileSync } from 'node:fs';
import ivm from 'isolated-vm';

const ISOLATES = 50;
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const rssMiB = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

async function bareIsolate(): Promise<ivm.Isolate> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  await context.eval('1');
  return isolate;
}

const memory = process.argv[2] === 'reused' ? 'reused' : 'fresh';
if (memory === 'reused') {
  const first: ivm.Isolate[] = [];
  for (let i = 0; i < ISOLATES; i += 1) first.push(await bareIsolate());
  for (const isolate of first) isolate.dispose();
}
const before = cpuMs();
const alive: ivm.Isolate[] = [];
for (let i = 0; i < ISOLATES; i += 1) alive.push(await bareIsolate());
const perIsolate = (cpuMs() - before) / ISOLATES;
process.stdout.write(
  `${JSON.stringify({ memory, isolates: ISOLATES, cpuMsPerIsolate: perIsolate, rssMiB: rssMiB() })}\n`,
);
for (const isolate of alive) isolate.dispose();
