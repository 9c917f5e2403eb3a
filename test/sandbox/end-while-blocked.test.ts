// A run can end (wall clock, abort, a limit) while its isolate is blocked on a call
// (guest/blocking-calls.ts), at any point of the crossing: before the host has seen the
// call, while it waits for the outcome, or after the answer left. Nothing waits for an
// answer that may never come (isolated-vm cancels a blocked applySyncPromise when its
// isolate is disposed), and the host survives every one of them: disposing the isolate
// while isolated-vm still waits for the reply promise it was handed crashed the whole
// process now and then (a native assertion, ~1 in 600 such ends), so a run that ends then
// disposes its isolate once that reply has settled, in the same turn.
import ivm from 'isolated-vm';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome } from '../../sandbox/types.ts';
import { expectOk } from './helpers.ts';
import { gate } from '../support/gate.ts';

/** An isolate whose guest blocks on a host function; `phase` says when the host disposes it. */
async function disposeWhileBlocked(
  phase: 'in the host function' | 'while the answer is pending' | 'before the host function runs',
): Promise<string> {
  const isolate = new ivm.Isolate({ memoryLimit: 16 });
  const context = await isolate.createContext();
  const inHost = gate();
  const reference = new ivm.Reference(async () => {
    if (phase === 'in the host function') isolate.dispose();
    inHost.open();
    // An answer that never comes: only the disposal can end the guest's wait.
    return new Promise<string>(() => undefined);
  });
  await context.global.set('blockingCall', reference);
  const running = context.eval('blockingCall.applySyncPromise(undefined, []); for (;;) {}', { promise: false });
  if (phase === 'before the host function runs') isolate.dispose();
  if (phase === 'while the answer is pending') {
    await inHost.passed;
    isolate.dispose();
  }
  return running.then(
    () => 'ran on',
    (error: unknown) => String(error),
  );
}

describe('isolated-vm: disposing an isolate blocked in applySyncPromise', () => {
  it.each(['in the host function', 'while the answer is pending', 'before the host function runs'] as const)(
    'disposed %s: the guest is stopped, nothing waits for the answer',
    async (phase) => {
      expect(await disposeWhileBlocked(phase)).toMatch(/disposed/);
    },
    10_000,
  );
});

describe('in-process runs ended while their isolate is blocked on a call', () => {
  const sandbox = createSandbox({ isolation: 'in-process', poolSize: 2 });
  afterAll(() => sandbox.close());
  // A quick tool (answered within the blocking wait: at once, or on a 1 ms timer) awaited
  // in an endless loop: the isolate spends most of its time blocked on a call, and the
  // wall clock or the abort, timers too, mostly fire while it is (about 4 in 5 when
  // counted). Enough runs that a crash of this process, were it back, shows.
  const hostCall = (request: { seq: number }): Promise<HostCallOutcome> =>
    request.seq % 2 === 0
      ? Promise.resolve({ ok: true, valueJson: '1' })
      : new Promise((resolve) => setTimeout(() => resolve({ ok: true, valueJson: '1' }), 1));
  const code = 'let s = 0; for (;;) s += await tools.f({});';
  // Compiled once before the loops (the compile cache keeps it), so a short wall clock
  // ends the program and not its first compile.
  beforeAll(async () => {
    const warm = await sandbox.run({ code, toolNames: ['f'], hostCall, limits: { maxCalls: 20 } });
    expect(warm.ok ? 'ok' : warm.kind).toBe('call-limit');
  });

  it('the wall clock ends each one as timeout', async () => {
    for (let i = 0; i < 200; i++) {
      const outcome = await sandbox.run({
        code,
        toolNames: ['f'],
        hostCall,
        limits: { wallTimeMs: 20 + (i % 7), maxCalls: 1_000_000 },
      });
      expect(outcome.ok ? 'ok' : outcome.kind).toBe('timeout');
    }
    expectOk(await sandbox.run({ code: 'return await tools.f({});', toolNames: ['f'], hostCall }), 1);
  }, 60_000);

  it('an abort ends each one as abort', async () => {
    for (let i = 0; i < 200; i++) {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 20 + (i % 7));
      const outcome = await sandbox.run({
        code,
        toolNames: ['f'],
        hostCall,
        signal: controller.signal,
        limits: { maxCalls: 1_000_000 },
      });
      expect(outcome.ok ? 'ok' : outcome.kind).toBe('abort');
    }
    expectOk(await sandbox.run({ code: 'return await tools.f({});', toolNames: ['f'], hostCall }), 1);
  }, 60_000);
});
