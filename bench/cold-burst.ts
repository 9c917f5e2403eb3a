// The capacity section's cold row (capacity-bench.ts), run in a fresh Node process of its
// own: a runtime created with the default settings (its sandbox is made by the first run:
// no sandbox process, warm code cache or ready isolate exists yet) gets N runs at once,
// each awaiting one 1 s tool. The clock starts just before createToolRuntime, once the
// library's entry point is loaded (the sandbox's own modules load on the first run, as
// for any user: this script imports nothing of sandbox/). Prints one JSON line.
//   node --no-node-snapshot bench/cold-burst.ts <process|in-process> <runs>
import { availableParallelism } from 'node:os';
import { createToolRuntime, defineTool } from '../src/index.ts';
import type { Isolation } from './bench-runtime.ts';
import { childrenCpuMs, ownCpuMs, spent } from './proc-cpu.ts';

export interface ColdBurstResult {
  readonly isolation: Isolation;
  readonly runs: number;
  readonly toolMs: number;
  /** From just before createToolRuntime until the last run finished. */
  readonly wallMs: number;
  readonly refused: number;
  readonly failed: number;
  /** When the first and the last run's tool call started (ms after the clock started). */
  readonly firstStartMs: number;
  readonly allWaitingMs: number;
  /** CPU ms until every tool call started: this process, the sandbox processes, the compiler. */
  readonly cpuMs: { readonly host: number; readonly sandbox: number; readonly compiler: number };
  readonly cores: number;
}

const TOOL_MS = 1_000;

/** The bench's `wait` tool (bench-runtime.ts), counting the calls that started. */
function waitTool(started: { count: number }) {
  return defineTool({
    name: 'wait',
    description: 'Waits `ms` milliseconds.',
    parameters: { ms: { type: 'integer', required: true, minimum: 0 }, safe: { type: 'boolean', required: true } },
    output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
    isConcurrencySafe: ({ safe }) => safe,
    execute: async ({ ms }) => {
      started.count += 1;
      return await new Promise<number>((resolve) => setTimeout(() => resolve(ms), ms));
    },
  });
}

export async function coldBurst(isolation: Isolation, runs: number): Promise<ColdBurstResult> {
  const started = { count: 0 };
  const before = { host: ownCpuMs(), children: childrenCpuMs() };
  const clock = performance.now();
  const rt = createToolRuntime({ mode: 'both', ...(isolation === 'in-process' ? { sandbox: { isolation } } : {}) });
  rt.register(waitTool(started));
  let firstStartMs: number | undefined;
  let allWaiting: { ms: number; cpuMs: ColdBurstResult['cpuMs'] } | undefined;
  const cpuSince = (): ColdBurstResult['cpuMs'] => {
    const children = childrenCpuMs();
    return {
      host: ownCpuMs() - before.host,
      sandbox: spent(before.children.sandbox, children.sandbox),
      compiler: spent(before.children.compiler, children.compiler),
    };
  };
  const watch = setInterval(() => {
    if (firstStartMs === undefined && started.count > 0) firstStartMs = performance.now() - clock;
    if (allWaiting === undefined && started.count >= runs) {
      allWaiting = { ms: performance.now() - clock, cpuMs: cpuSince() };
    }
  }, 2);
  try {
    let id = 0;
    const results = await Promise.all(
      Array.from({ length: runs }, () =>
        rt.execute({
          callId: `cold-${(id += 1)}`,
          name: 'run_code',
          arguments: { description: 'bench', code: `return await tools.wait({ ms: ${TOOL_MS}, safe: true })` },
        }),
      ),
    );
    const wallMs = performance.now() - clock;
    const refused = results.filter((r) => r.isError && r.error?.info?.['kind'] === 'busy').length;
    const end = allWaiting ?? { ms: wallMs, cpuMs: cpuSince() };
    return {
      isolation,
      runs,
      toolMs: TOOL_MS,
      wallMs,
      refused,
      failed: results.filter((r) => r.isError).length - refused,
      firstStartMs: firstStartMs ?? wallMs,
      allWaitingMs: end.ms,
      cpuMs: end.cpuMs,
      cores: availableParallelism(),
    };
  } finally {
    clearInterval(watch);
    await rt.close();
  }
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const isolation = process.argv[2] === 'in-process' ? 'in-process' : 'process';
  const runs = Number(process.argv[3] ?? 100);
  process.stdout.write(`${JSON.stringify(await coldBurst(isolation, runs))}\n`);
  process.exit(0);
}
