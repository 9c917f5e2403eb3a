// The runtime every section measures: the real createToolRuntime with a sandbox the
// bench creates itself (so it can read the sandbox process's pid), and three trivial
// tools whose bodies cost nothing, so what is timed is the runtime.
import { createToolRuntime, defineTool, type ToolResult } from '../src/index.ts';
import type { ToolRuntime } from '../src/runtime/create-tool-runtime.ts';
import { createSandbox, ProcessSandbox } from '../sandbox/index.ts';
import type { Sandbox, SandboxLimits } from '../sandbox/types.ts';

export type Isolation = 'process' | 'in-process';

export interface BenchRuntime {
  readonly rt: ToolRuntime;
  readonly sandbox: Sandbox;
  readonly isolation: Isolation;
  /** Pid of the sandbox process taking new runs (process isolation only). */
  childPid(): number | undefined;
  /** Runs `code` through rt.execute('run_code'); throws if the run failed. */
  runCode(code: string): Promise<ToolResult>;
  /** One direct rt.execute of a tool (the pipeline without the sandbox). */
  execute(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

const LOOKUP_RECORDS = Array.from({ length: 16 }, (_, i) => ({
  id: i,
  name: `item-${i}`,
  score: (i * 37) % 100,
  tags: i % 2 === 0 ? ['even', 'bench'] : ['odd', 'bench'],
}));

/** Calls of the `wait` tool running right now, the most seen at once and how many started since the last reset. */
export const waitGauge = {
  inFlight: 0,
  maxInFlight: 0,
  started: 0,
  reset(): void {
    this.inFlight = 0;
    this.maxInFlight = 0;
    this.started = 0;
  },
};

export function benchTools() {
  return [
    defineTool({
      name: 'noop',
      description: 'Returns its number.',
      parameters: { n: { type: 'integer', required: true } },
      output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
      isConcurrencySafe: () => true,
      execute: ({ n }) => n,
    }),
    defineTool({
      name: 'lookup',
      description: 'One small record by id (0-15).',
      parameters: { id: { type: 'integer', required: true, minimum: 0, maximum: 15 } },
      output: { schema: { type: 'json' }, render: (_args, value) => [{ type: 'text', text: JSON.stringify(value) }] },
      isConcurrencySafe: () => true,
      execute: ({ id }) => LOOKUP_RECORDS[id] ?? null,
    }),
    defineTool({
      name: 'wait',
      description: 'Waits `ms` milliseconds; concurrency-safe only when `safe` is true.',
      parameters: { ms: { type: 'integer', required: true, minimum: 0 }, safe: { type: 'boolean', required: true } },
      output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
      isConcurrencySafe: ({ safe }) => safe,
      execute: async ({ ms }, exec) => {
        waitGauge.inFlight += 1;
        waitGauge.started += 1;
        waitGauge.maxInFlight = Math.max(waitGauge.maxInFlight, waitGauge.inFlight);
        try {
          return await new Promise<number>((resolve, reject) => {
            const timer = setTimeout(() => resolve(ms), ms);
            exec.signal.addEventListener(
              'abort',
              () => {
                clearTimeout(timer);
                reject(exec.signal.reason);
              },
              { once: true },
            );
          });
        } finally {
          waitGauge.inFlight -= 1;
        }
      },
    }),
  ];
}

export interface BenchRuntimeOptions {
  readonly isolation: Isolation;
  /** Pre-warmed isolates (default: sandbox/pool-size.ts; 0 = a fresh isolate per run, no pool). */
  readonly poolSize?: number;
  readonly limits?: Partial<SandboxLimits>;
  /** SandboxOptions.blockingCalls (default true); false measures the asynchronous call path alone. */
  readonly blockingCalls?: boolean;
  /** SandboxOptions.placeBlockingStreaks (in-process; default true). */
  readonly placeBlockingStreaks?: boolean;
}

export function createBenchRuntime(options: BenchRuntimeOptions): BenchRuntime {
  const sandbox = createSandbox({
    isolation: options.isolation,
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.blockingCalls === undefined ? {} : { blockingCalls: options.blockingCalls }),
    ...(options.placeBlockingStreaks === undefined ? {} : { placeBlockingStreaks: options.placeBlockingStreaks }),
  });
  const rt = createToolRuntime({
    mode: 'both',
    sandbox,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  for (const tool of benchTools()) rt.register(tool);
  let id = 0;
  return {
    rt,
    sandbox,
    isolation: options.isolation,
    childPid: () => (sandbox instanceof ProcessSandbox ? sandbox.childPid : undefined),
    async runCode(code) {
      const result = await rt.execute({
        callId: `bench-${(id += 1)}`,
        name: 'run_code',
        arguments: { description: 'bench', code },
      });
      if (result.isError) throw new Error(`bench: run_code failed: ${result.error?.message ?? '(no message)'}`);
      return result;
    },
    async execute(name, args) {
      const result = await rt.execute({ callId: `bench-${(id += 1)}`, name, arguments: args });
      if (result.isError) throw new Error(`bench: ${name} failed: ${result.error?.message ?? '(no message)'}`);
      return result;
    },
    async close() {
      await rt.close();
      await sandbox.close();
    },
  };
}

/**
 * A burst of `runs` at once, each inside a 1 s tool call together: the sandbox's ready pool
 * grows to the most runs it has seen at once, so a bench of a burst on a warm runtime
 * first shows it one as large (the pool then fills in idle time).
 */
export async function showBurst(bench: BenchRuntime, runs: number): Promise<void> {
  await Promise.all(
    Array.from({ length: runs }, () => bench.runCode('return await tools.wait({ ms: 1000, safe: true })')),
  );
}
