// The host side of a nested call alone: a stand-in sandbox whose run() drives the
// runtime's HostCall for 1,000 sequential `noop` calls from plain JS — run_code's bridge,
// the call sequencer, the pipeline with the parent's token, the result's JSON — with no
// isolate and no IPC. Against direct rt.execute it is what a nested call costs the host
// beyond the call itself; against the whole nested call, the sandbox's share.
import { createToolRuntime } from '../src/index.ts';
import type { RunOutcome, RunRequest, Sandbox } from '../sandbox/types.ts';
import { NESTED_CALLS } from './bench-programs.ts';
import { benchTools } from './bench-runtime.ts';

export interface HostSideBench {
  /** Microseconds per HostCall, 1,000 sequential calls in one run_code run. */
  perCallUs(): Promise<number>;
  close(): Promise<void>;
}

export function createHostSideBench(): HostSideBench {
  let elapsedUs = 0;
  const standIn: Sandbox = {
    async run(request: RunRequest): Promise<RunOutcome> {
      const start = performance.now();
      for (let seq = 1; seq <= NESTED_CALLS; seq += 1) {
        // The sandbox's bridge gives every call its own signal too.
        const controller = new AbortController();
        const outcome = await request.hostCall({
          seq,
          toolName: 'noop',
          argsJson: `{"n":${seq}}`,
          signal: controller.signal,
        });
        if (!outcome.ok) throw new Error(`bench: host-side noop failed: ${outcome.message}`);
      }
      elapsedUs = (performance.now() - start) * 1000;
      return { ok: true, logs: [], result: NESTED_CALLS };
    },
    async close() {},
  };
  const rt = createToolRuntime({ mode: 'both', sandbox: standIn });
  for (const tool of benchTools()) rt.register(tool);
  let id = 0;
  return {
    async perCallUs() {
      const result = await rt.execute({
        callId: `host-side-${(id += 1)}`,
        name: 'run_code',
        arguments: { description: 'host side', code: 'return 1' },
      });
      if (result.isError) throw new Error(`bench: host-side run failed: ${result.error?.message ?? '(no message)'}`);
      return elapsedUs / NESTED_CALLS;
    },
    close: () => rt.close(),
  };
}
