// Body of one worker_threads run (worker-per-run-peer.ts): evaluates the compiled
// program with a `tools` object whose calls go to the parent as JSON text, then posts
// the result. The worker lives for exactly one run.
import { parentPort, workerData } from 'node:worker_threads';

interface Reply {
  readonly seq: number;
  readonly ok: boolean;
  readonly valueJson?: string;
  readonly message?: string;
}

const port = parentPort;
if (port === null) throw new Error('worker-peer-entry: must run as a worker');
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let seq = 0;
port.on('message', (reply: Reply) => {
  const entry = pending.get(reply.seq);
  pending.delete(reply.seq);
  if (reply.ok) entry?.resolve(JSON.parse(reply.valueJson ?? 'null'));
  else entry?.reject(new Error(reply.message ?? 'tool call failed'));
});
const tools = new Proxy(
  {},
  {
    get: (_target, name) => (args: unknown) =>
      new Promise((resolve, reject) => {
        seq += 1;
        pending.set(seq, { resolve, reject });
        port.postMessage({ type: 'call', seq, toolName: String(name), argsJson: JSON.stringify(args) });
      }),
  },
);
const logs: string[] = [];
const console = { log: (...values: unknown[]) => void logs.push(values.map(String).join(' ')) };
const { js } = workerData as { js: string };
try {
  // js is `(async function (tools, console) { ... });` as compiled by the host.
  const program = new Function(`return ${js}`)() as (t: unknown, c: unknown) => Promise<unknown>;
  const value = await program(tools, console);
  port.postMessage({ type: 'done', ok: true, resultJson: JSON.stringify(value ?? null), logs });
} catch (error) {
  port.postMessage({ type: 'done', ok: false, message: String(error), logs });
}
