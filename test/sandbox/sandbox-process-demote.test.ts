// The sandbox process demotes its spinning threads when the host asks ('demote'), for its
// CPU-bound runs. The host asks when it assigns a run while it believes the process has
// one, so a 'demote' can arrive after the last of them has ended there (its 'done' was on
// its way): then there is nothing to demote, and an ordinary run's long stretch of
// computing must keep its priority. Driven over the process's IPC protocol directly.
import { fork } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { SANDBOX_PROCESS_BUNDLE } from '../../sandbox/bundle-sandbox-process.ts';
import { mayRestorePriority } from '../../sandbox/cpu-lanes.ts';
import type { ChildConfig, HostToChild } from '../../sandbox/ipc-messages.ts';
import { resolveLimits } from '../../sandbox/limits.ts';
import { prepareRun } from '../../sandbox/run-request.ts';
import { fakeHost } from './helpers.ts';
import { demotedThreads } from '../support/demoted-threads.ts';

describe('sandbox process: demote', () => {
  it('a demote that arrives when no run of the process is CPU-bound demotes nothing (Linux, where the priority may be raised)', async () => {
    if (process.platform !== 'linux' || !mayRestorePriority()) return;
    const config: ChildConfig = { poolSize: 1, memoryMb: 128, blockingCalls: false };
    const child = fork(SANDBOX_PROCESS_BUNDLE, [JSON.stringify(config)], {
      execArgv: ['--no-node-snapshot'],
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const pid = child.pid;
      if (pid === undefined) throw new Error('the sandbox process did not start');
      const messages: { type?: unknown }[] = [];
      const waiters: (() => void)[] = [];
      child.on('message', (message: { type?: unknown }) => {
        messages.push(message);
        for (const wake of waiters.splice(0)) wake();
      });
      const next = async (type: string): Promise<void> => {
        while (!messages.some((message) => message.type === type)) {
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
      };
      const send = (message: HostToChild): void => {
        child.send(message);
      };
      await next('ready');
      const prepared = await prepareRun(
        { code: 'console.log("spinning"); for (;;) {}', toolNames: [], hostCall: fakeHost().hostCall },
        resolveLimits({ wallTimeMs: 120_000 }),
      );
      if (prepared.outcome !== undefined) throw new Error('the program did not compile');
      const { program, limits, determinism } = prepared;
      send({
        type: 'run',
        runId: 1,
        program: { js: program.js, lineCount: program.lineCount },
        toolNames: [],
        limits,
        determinism,
      });
      // The program spins from its log line on; it is CPU-bound only after 1 s of CPU, so
      // it is not one yet when the demote arrives.
      await next('log');
      send({ type: 'demote' });
      // Once it is reported CPU-bound (1 s of CPU later), a demotion the demote started
      // (300 ms of watching) would long have happened.
      await next('heavy');
      expect(demotedThreads(pid)).toStrictEqual([]);
      send({ type: 'cancel', runId: 1, kind: 'abort', message: 'done looking' });
      await next('done');
    } finally {
      if (child.connected) child.send({ type: 'close' } satisfies HostToChild);
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
  }, 120_000);
});
