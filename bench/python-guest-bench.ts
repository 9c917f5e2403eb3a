// The Python guest beside the TypeScript one, through the same runtime (rt.execute of
// run_code, the whole pipeline): `return 1`, one sequential nested call, 100 calls of a
// 10 ms tool (TypeScript runs them together with Promise.all; Python calls one at a time),
// a run paused for approval and resumed (JSONL journal), and one waiting run's memory
// (RSS growth of this process and its child processes, the Python processes, over runs
// held on a tool, divided by their number).
// Samples alternate between the guests, so both meet the same machine state.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ask, createToolRuntime, defineTool, type PausedRun, type ToolRuntime } from '../src/index.ts';
import type { Row } from './bench-rows.ts';
import { benchTools } from './bench-runtime.ts';
import { summarize, type Summary } from './stats.ts';

type Guest = 'typescript' | 'python';
const GUESTS: readonly Guest[] = ['typescript', 'python'];

const PROGRAMS: Record<string, Record<Guest, string>> = {
  'return 1': { typescript: 'return 1', python: '1' },
  'one sequential nested call': {
    typescript: 'return (await tools.lookup({ id: 3 })).name',
    python: 'lookup(id=3)["name"]',
  },
  '100 × 10 ms calls': {
    typescript:
      'const r = await Promise.all(Array.from({ length: 100 }, () => tools.wait({ ms: 10, safe: true }))); return r.length',
    python: 'r = [wait(ms=10, safe=True) for i in range(100)]\nlen(r)',
  },
};

export interface PythonGuestBenchResult {
  /** ms per run, by row name and guest. */
  readonly latency: Record<string, Record<Guest, Summary>>;
  /** Pause (execute until paused) plus resume (until completed), ms. */
  readonly pauseResume: Record<Guest, Summary>;
  /** RSS growth per run held on a tool, bytes. */
  readonly memoryPerRun: Record<Guest, number>;
  readonly rows: Row[];
}

export interface PythonGuestBenchOptions {
  readonly iterations?: number;
  readonly slowIterations?: number;
  readonly heldRuns?: number;
}

function runtime(guest: Guest, extra: Parameters<typeof createToolRuntime>[0] = {}): ToolRuntime {
  const rt = createToolRuntime({ mode: 'ptc', guest, sandbox: { isolation: 'in-process' }, ...extra });
  for (const tool of benchTools()) rt.register(tool);
  return rt;
}

let ids = 0;
async function timed(rt: ToolRuntime, code: string): Promise<number> {
  const started = performance.now();
  const result = await rt.execute({ callId: `b${++ids}`, name: 'run_code', arguments: { description: 'bench', code } });
  const ms = performance.now() - started;
  if (result.isError) throw new Error(`bench program failed: ${result.error?.message}`);
  return ms;
}

async function pauseResume(guest: Guest, dir: string, iterations: number): Promise<Summary> {
  const rt = runtime(guest, { journal: join(dir, `${guest}.jsonl`), approval: { request: async () => 'pause' } });
  rt.on('tools/pre-execute', (exec, next) => (exec.name === 'noop' ? ask({ title: 'noop?' }) : next()));
  const code =
    guest === 'python'
      ? 'a = lookup(id=1)\nb = noop(n=2)\n[a["id"], b]'
      : 'const a = await tools.lookup({ id: 1 }); const b = await tools.noop({ n: 2 }); return [a.id, b]';
  const samples: number[] = [];
  try {
    for (let i = 0; i < iterations; i++) {
      const started = performance.now();
      const first = await rt.execute({
        callId: `p${++ids}`,
        name: 'run_code',
        arguments: { description: 'pause', code },
      });
      const paused = (first.value as { paused?: PausedRun } | undefined)?.paused;
      if (paused === undefined) throw new Error(`bench program did not pause: ${first.error?.message}`);
      const done = await rt.resume(paused.runId, { [paused.pending[0]!.callId]: 'approve' });
      if (done.isError) throw new Error(`resume failed: ${done.error?.message}`);
      samples.push(performance.now() - started);
    }
  } finally {
    await rt.close();
  }
  return summarize(samples.slice(1));
}

/** Resident memory of this process and its direct children (Linux /proc; elsewhere this process's alone). */
function rssWithChildren(): number {
  let bytes = process.memoryUsage().rss;
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return bytes;
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (kib !== undefined) bytes += Number(kib) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return bytes;
}

/** RSS growth (this process and its children) per run while `count` runs wait on a tool that answers once all have called it. */
async function memoryPerRun(guest: Guest, count: number): Promise<number> {
  // Every run must reach the tool before any is answered: none may be refused for waiting
  // long for a CPU slot (a loaded machine), so the queue waits as long as a run may. And all
  // must be admitted at once: admission reserves each run's heap limit plus its off-heap
  // footprint (4 MiB), so the held runs get small heaps and a budget with room for all of
  // them (else the first few would hold until their wall limit, waiting for the rest).
  const memoryMb = 16;
  const rt = createToolRuntime({
    mode: 'ptc',
    guest,
    sandbox: { isolation: 'in-process' },
    limits: { memoryMb },
    admission: { queueTimeoutMs: 120_000, memoryBudgetBytes: (count + 8) * (memoryMb + 4) * 1_048_576 },
  });
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived = 0;
  let allArrived: () => void = () => {};
  const everyone = new Promise<void>((resolve) => {
    allArrived = resolve;
  });
  rt.register(
    defineTool({
      name: 'hold',
      description: 'Waits for the bench.',
      parameters: {},
      output: { schema: { type: 'integer' }, render: () => [{ type: 'text', text: '1' }] },
      isConcurrencySafe: () => true,
      execute: async () => {
        if (++arrived === count) allArrived();
        await gate;
        return 1;
      },
    }),
  );
  const code =
    guest === 'python'
      ? 'data = [i for i in range(100)]\nhold()\nlen(data)'
      : 'const data = Array.from({ length: 100 }, (_, i) => i); await tools.hold({}); return data.length';
  try {
    await timed(rt, guest === 'python' ? '1' : 'return 1'); // loads the guest
    globalThis.gc?.();
    const before = rssWithChildren();
    const runs = Array.from({ length: count }, (_, i) =>
      rt.execute({ callId: `m${i}`, name: 'run_code', arguments: { description: 'held', code } }),
    );
    await everyone;
    const during = rssWithChildren();
    release();
    await Promise.all(runs);
    return Math.max(0, during - before) / count;
  } finally {
    release();
    await rt.close();
  }
}

const ms = (n: number): string => `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms`;

export async function runPythonGuestBench(options: PythonGuestBenchOptions = {}): Promise<PythonGuestBenchResult> {
  const iterations = options.iterations ?? 60;
  const slow = options.slowIterations ?? 4;
  const heldRuns = options.heldRuns ?? 200;
  const runtimes = { typescript: runtime('typescript'), python: runtime('python') };
  const latency: Record<string, Record<Guest, Summary>> = {};
  try {
    for (const [name, programs] of Object.entries(PROGRAMS)) {
      const n = name.startsWith('100') ? slow : iterations;
      const samples: Record<Guest, number[]> = { typescript: [], python: [] };
      for (let i = 0; i < n + 2; i++) {
        for (const guest of GUESTS) {
          const t = await timed(runtimes[guest], programs[guest]);
          if (i >= 2) samples[guest].push(t); // two warm-up rounds
        }
      }
      latency[name] = { typescript: summarize(samples.typescript), python: summarize(samples.python) };
    }
  } finally {
    await Promise.all(GUESTS.map((g) => runtimes[g].close()));
  }
  const dir = await mkdtemp(join(tmpdir(), 'ptc-bench-python-'));
  let pause: Record<Guest, Summary>;
  try {
    pause = {
      typescript: await pauseResume('typescript', dir, Math.max(4, slow * 2)),
      python: await pauseResume('python', dir, Math.max(4, slow * 2)),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const memory = {
    typescript: await memoryPerRun('typescript', heldRuns),
    python: await memoryPerRun('python', heldRuns),
  };
  const row = (name: string, ts: Summary, py: Summary): Row => ({
    section: '8 guests',
    name: `${name}: Python (Monty) against TypeScript (in-process isolate), p50 [p90]`,
    value: `${ms(py.p50)} [${ms(py.p90)}]`,
    baseline: `${ms(ts.p50)} [${ms(ts.p90)}]`,
    ratio: `${(py.p50 / ts.p50).toFixed(2)}×`,
    target: '',
    met: null,
  });
  const rows = Object.entries(latency).map(([name, s]) => row(name, s.typescript, s.python));
  rows.push(row('pause for approval, resume (JSONL journal)', pause.typescript, pause.python));
  rows.push({
    section: '8 guests',
    name: `one run's memory while ${heldRuns} runs wait on a tool: RSS growth per run (Python processes included), Python against TypeScript (in-process)`,
    value: `${(memory.python / 1024).toFixed(1)} KiB`,
    baseline: `${(memory.typescript / 1024).toFixed(1)} KiB`,
    ratio: memory.typescript > 0 ? `${(memory.python / memory.typescript).toFixed(2)}×` : '',
    target: '',
    met: null,
  });
  return { latency, pauseResume: pause, memoryPerRun: memory, rows };
}

// `node bench/python-guest-bench.ts`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runPythonGuestBench(
    process.argv.includes('--quick') ? { iterations: 15, slowIterations: 2, heldRuns: 50 } : {},
  );
  for (const r of result.rows) console.log(`${r.name}\n  ${r.value}  vs  ${r.baseline}  (${r.ratio})`);
}
