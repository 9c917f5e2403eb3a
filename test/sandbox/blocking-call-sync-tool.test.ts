// What the blocking crossing's 2 ms bound is measured by: the host's event loop. A tool
// that is slow asynchronously (it awaits) lets the host release the blocked isolate after
// 2 ms, so a call the program did not await stops holding it. A tool that holds the
// host's thread (synchronous work) keeps the release from firing: the call is answered
// while the isolate is still blocked, after the tool returns, and a program that went on
// without awaiting the call waited for it all the same (docs/performance.md says so, and
// `blockingCalls: false` is the way out). Both modes, counted without timing: in-process
// by the isolate's own counts, in process mode by the host end of the pipes.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { blockingPipeStats } from '../../sandbox/blocking-call-pipe.ts';
import { blockingCallStats } from '../../sandbox/isolate-run.ts';
import type { HostCallOutcome } from '../../sandbox/types.ts';
import { expectOk, sleep } from './helpers.ts';

const TOOL_MS = 200;
/** Holds the host's thread for TOOL_MS, then answers. */
const synchronousTool = (): Promise<HostCallOutcome> => {
  const end = Date.now() + TOOL_MS;
  while (Date.now() < end) {
    // busy: no timer of the host can fire meanwhile
  }
  return Promise.resolve({ ok: true, valueJson: '"sync"' });
};
const asynchronousTool = async (): Promise<HostCallOutcome> => {
  await sleep(TOOL_MS);
  return { ok: true, valueJson: '"async"' };
};
// The call is not awaited: the program goes on through a few microtask turns first.
const code = `const p = tools.f({});
let turns = 0;
for (let i = 0; i < 5; i++) { await null; turns++; }
return [turns, await p];`;

const modes = [
  ['in-process', createSandbox({ isolation: 'in-process', poolSize: 1 }), blockingCallStats],
  ['process', createSandbox({ poolSize: 1, processes: 1 }), blockingPipeStats],
] as const;
afterAll(() => Promise.all(modes.map(([, sandbox]) => sandbox.close())));

describe.each(modes)('a call the program did not await (%s)', (_mode, sandbox, stats) => {
  const counted = async (hostCall: () => Promise<HostCallOutcome>, result: string) => {
    const before = { ...stats };
    expectOk(await sandbox.run({ code, toolNames: ['f'], hostCall }), [5, result]);
    return { answered: stats.answered - before.answered, released: stats.released - before.released };
  };

  it('to a tool that awaits is released after the blocking wait: the program goes on', async () => {
    expect(await counted(asynchronousTool, 'async')).toStrictEqual({ answered: 0, released: 1 });
  });

  it('to a tool that holds the host thread is answered while the isolate is still blocked', async () => {
    expect(await counted(synchronousTool, 'sync')).toStrictEqual({ answered: 1, released: 0 });
  });
});
