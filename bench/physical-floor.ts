// The physical floor of one run, measured on this machine in the same process as the
// runtime: esbuild.transform of the same code, a new context on an already warm
// isolate, a bare JSON bridge for `tools`, and eval of the program to its JSON result.
// No prelude, no limits, no pool, no pipeline: what no sandbox built on isolated-vm
// can go below.
import { transform } from 'esbuild';
import ivm from 'isolated-vm';

export interface FloorSample {
  readonly totalMs: number;
  readonly transformMs: number;
  readonly contextMs: number;
  readonly evalMs: number;
}

/** Host answers of the bare bridge: tool name + args JSON -> value JSON. */
export type BareTool = (argsJson: string) => string;

export class PhysicalFloor {
  readonly #isolate = new ivm.Isolate({ memoryLimit: 128 });
  readonly #call: ivm.Callback;

  constructor(tools: Readonly<Record<string, BareTool>>) {
    // Synchronous host tools answered through an async Callback: one bare host round trip per call.
    this.#call = new ivm.Callback(
      (name: string, argsJson: string) => {
        const tool = tools[name];
        if (tool === undefined) throw new Error(`no tool ${name}`);
        return tool(argsJson);
      },
      { async: true },
    );
  }

  async run(code: string): Promise<FloorSample> {
    const t0 = performance.now();
    const output = await transform(
      `(async () => {
const console = { log: (...a) => { globalThis.__logs.push(a.map(String).join(' ')); } };
const tools = new Proxy({}, { get: (_, name) => async (args) => JSON.parse(await __call(String(name), JSON.stringify(args))) });
${code}
})().then((value) => JSON.stringify(value))`,
      { loader: 'ts', target: 'es2023' },
    );
    const t1 = performance.now();
    const context = await this.#isolate.createContext();
    await context.global.set('__call', this.#call);
    await context.global.set('__logs', [], { copy: true });
    const t2 = performance.now();
    const result: unknown = await context.eval(output.code, { promise: true, copy: true });
    const t3 = performance.now();
    context.release();
    if (typeof result !== 'string') throw new Error('floor: the program returned no JSON');
    return { totalMs: t3 - t0, transformMs: t1 - t0, contextMs: t2 - t1, evalMs: t3 - t2 };
  }

  dispose(): void {
    this.#isolate.dispose();
  }
}

/**
 * The bare floor of a run that gets a fresh isolate, as every run_code run does: a new
 * isolate, a context in it and eval of a trivial script, timed in ms (the isolate is
 * disposed outside the timing). No prelude, no bridge, no limits.
 */
export async function freshIsolateFloorMs(): Promise<number> {
  const t0 = performance.now();
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  await context.eval('1');
  const elapsed = performance.now() - t0;
  isolate.dispose();
  return elapsed;
}
