// Peer 1: the reference design's approach, a fresh worker_threads Worker per run. The
// host compiles with esbuild like the sandbox does, every tool call is posted to the
// host and executed with rt.execute (the same pipeline), and the worker is terminated
// at the end. No isolated-vm, no memory or CPU limits: only the cost of its isolation.
import { Worker } from 'node:worker_threads';
import { transform } from 'esbuild';
import type { ToolRuntime } from '../src/runtime/create-tool-runtime.ts';

const ENTRY = new URL(`./worker-peer-entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

interface CallMessage {
  readonly type: 'call';
  readonly seq: number;
  readonly toolName: string;
  readonly argsJson: string;
}
interface DoneMessage {
  readonly type: 'done';
  readonly ok: boolean;
  readonly resultJson?: string;
  readonly message?: string;
}

let callIds = 0;

/** Runs `code` (the body of an async function) in a new Worker; resolves with the result JSON. */
export async function runInFreshWorker(rt: ToolRuntime, code: string): Promise<string> {
  // The same shape the sandbox compiles: the program is the body of an async function.
  const { code: js } = await transform(`(async function (tools, console) {\n${code}\n})`, {
    loader: 'ts',
    target: 'es2023',
  });
  const worker = new Worker(ENTRY, { workerData: { js } });
  try {
    return await new Promise<string>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('exit', (exitCode) => reject(new Error(`worker exited with code ${exitCode} before it answered`)));
      worker.on('message', (message: CallMessage | DoneMessage) => {
        if (message.type === 'done') {
          if (message.ok) resolve(message.resultJson ?? 'null');
          else reject(new Error(`worker run failed: ${message.message ?? ''}`));
          return;
        }
        void rt
          .execute({
            callId: `worker-${(callIds += 1)}`,
            name: message.toolName,
            arguments: JSON.parse(message.argsJson) as unknown,
          })
          .then((result) => {
            worker.postMessage(
              result.isError
                ? { seq: message.seq, ok: false, message: result.error?.message ?? 'tool call failed' }
                : { seq: message.seq, ok: true, valueJson: JSON.stringify(result.value ?? null) },
            );
          });
      });
    });
  } finally {
    await worker.terminate();
  }
}
