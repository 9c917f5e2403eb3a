// Every isolate compiles the guest prelude from V8's code cache, made warm once per
// process by a warm-up run in a throwaway isolate (prelude-warm-up.ts; its blocked call
// is not counted with the sandbox's), and an isolate built that way behaves like any:
// the prelude's tools, console and outcome all work.
import { describe, expect, it } from '@jest/globals';
import { PreparedIsolate, preludeCacheStats } from '../../sandbox/isolate-pool.ts';
import { blockingCallStats } from '../../sandbox/isolate-run.ts';
import { warmUpRun } from '../../sandbox/prelude-warm-up.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { expectOk, fakeHost } from './helpers.ts';

describe('prelude code cache', () => {
  it('the first isolate waits for the warm cache and later ones accept it', async () => {
    const before = { ...blockingCallStats };
    const first = await PreparedIsolate.create(32);
    expect(preludeCacheStats.warm).toBe(1);
    expect(blockingCallStats).toStrictEqual(before);
    const second = await PreparedIsolate.create(32);
    const third = await PreparedIsolate.create(32);
    for (const prepared of [first, second, third]) prepared.dispose();
    expect(preludeCacheStats.produced).toBeGreaterThanOrEqual(1);
    expect(preludeCacheStats.warm).toBe(1);
    expect(preludeCacheStats.accepted).toBeGreaterThanOrEqual(2);
    expect(preludeCacheStats.rejected).toBe(0);
  });

  it('runs in isolates built from the cache keep the full guest surface', async () => {
    const sandbox = createSandbox({ isolation: 'in-process', poolSize: 0 });
    try {
      for (let i = 0; i < 3; i++) {
        const outcome = await sandbox.run({
          code: 'console.log("n", 1); const r = await tools.echo({ i: 1 }); return [typeof ToolCallError, r.args.i];',
          toolNames: ['echo'],
          hostCall: fakeHost().hostCall,
        });
        expectOk(outcome, ['function', 1]);
        expect(outcome.logs).toStrictEqual(['n 1']);
      }
      expect(preludeCacheStats.accepted).toBeGreaterThanOrEqual(3);
    } finally {
      await sandbox.close();
    }
  });

  it('an isolate prepared on the calling thread (sandbox processes) is the same as one prepared on isolated-vm threads', async () => {
    const globalsOf = async (prepared: PreparedIsolate): Promise<unknown> =>
      JSON.parse(
        (await prepared.context.eval('JSON.stringify(Reflect.ownKeys(globalThis).map(String).sort())')) as string,
      );
    const onThreads = await PreparedIsolate.create(32, undefined, true, false);
    const onThisThread = await PreparedIsolate.create(32, undefined, true, true);
    try {
      const names = await globalsOf(onThisThread);
      expect(names).toStrictEqual(await globalsOf(onThreads));
      // The host's hooks are taken off the global before any program runs.
      expect(names).not.toContain('__ptc_send');
      expect(names).not.toContain('__ptc_configure');
      expect(names).not.toContain('__ptc_deliver');
      // A whole run on it: configure, a blocked tool call, a log line, URL, the result.
      expect(await warmUpRun(onThisThread)).toBe(true);
    } finally {
      onThreads.dispose();
      onThisThread.dispose();
    }
  });
});
