// The two transports a nested call crosses, measured bare: an isolated-vm host round
// trip (guest awaits an async host Callback, JSON text both ways) and a Node IPC round
// trip to a child process (the same 'advanced' serialization as the sandbox process).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';

/** Microseconds per round trip of `calls` sequential guest -> host -> guest calls. */
export async function bareIsolateRoundTripUs(calls: number): Promise<number> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  try {
    const context = await isolate.createContext();
    await context.global.set(
      '__call',
      new ivm.Callback((_name: string, argsJson: string) => JSON.stringify((JSON.parse(argsJson) as { n: number }).n), {
        async: true,
      }),
    );
    const script = await isolate.compileScript(`(async () => {
  let sum = 0;
  for (let i = 0; i < ${calls}; i++) sum += JSON.parse(await __call('noop', JSON.stringify({ n: i })));
  return sum;
})()`);
    const start = performance.now();
    await script.run(context, { promise: true });
    const elapsed = performance.now() - start;
    script.release();
    context.release();
    return (elapsed * 1000) / calls;
  } finally {
    isolate.dispose();
  }
}

const ECHO_CHILD = fileURLToPath(
  new URL(`./ipc-echo-child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/** Microseconds per round trip of `calls` sequential host -> child -> host messages. */
export async function bareIpcRoundTripUs(calls: number): Promise<number> {
  const child = fork(ECHO_CHILD, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const roundTrip = (message: { seq: number; argsJson: string }): Promise<unknown> =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send(message);
      });
    for (let i = 0; i < 50; i += 1) await roundTrip({ seq: i, argsJson: '{}' }); // warm-up
    const start = performance.now();
    for (let i = 0; i < calls; i += 1) await roundTrip({ seq: i, argsJson: JSON.stringify({ n: i }) });
    return ((performance.now() - start) * 1000) / calls;
  } finally {
    child.kill();
  }
}
