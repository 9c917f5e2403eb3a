// The guest side both crossing-floor benches time: a loop of `calls` sequential calls that
// cross to the host through `__send` (answered by a `__deliver` task) or `__callSync`
// (applySyncPromise). The caller installs `__send` / `__callSync`; this installs the loop,
// returns the deliver reference, and times the loop after a 50-call warm-up.
import type ivm from 'isolated-vm';

const GUEST_LOOP = `
  const pending = new Map();
  globalThis.__deliver = (text) => { const m = JSON.parse(text); const r = pending.get(m.seq); pending.delete(m.seq); r(JSON.parse(m.value)); };
  const callAsync = (seq, args) => new Promise((resolve) => { pending.set(seq, resolve); __send(JSON.stringify({ seq, args: JSON.stringify(args) })); });
  const callSync = (seq, args) => JSON.parse(JSON.parse(__callSync.applySyncPromise(undefined, [JSON.stringify({ seq, args: JSON.stringify(args) })])).value);
  globalThis.__main = async (n, sync) => {
    let sum = 0;
    for (let i = 1; i <= n; i++) sum += sync ? callSync(i, { n: i }).n : (await callAsync(i, { n: i })).n;
    return sum;
  };`;

export interface GuestLoop {
  /** The guest's `__deliver(text)`: answers an asynchronous call. */
  readonly deliver: ivm.Reference<(text: string) => void>;
  /** Microseconds per call of `calls` sequential calls, blocking (`sync`) or not. */
  time(calls: number, sync: boolean): Promise<number>;
}

export async function installGuestLoop(isolate: ivm.Isolate, context: ivm.Context): Promise<GuestLoop> {
  const script = await isolate.compileScript(GUEST_LOOP);
  await script.run(context);
  const deliver = (await context.global.get('__deliver', { reference: true })) as ivm.Reference<(text: string) => void>;
  const main = (await context.global.get('__main', { reference: true })) as ivm.Reference<
    (n: number, sync: boolean) => Promise<number>
  >;
  return {
    deliver,
    async time(calls, sync) {
      await main.apply(undefined, [50, sync], { result: { promise: true } });
      const start = performance.now();
      await main.apply(undefined, [calls, sync], { result: { promise: true } });
      return ((performance.now() - start) * 1000) / calls;
    },
  };
}
