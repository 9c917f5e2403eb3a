// The sandbox process: a child that dies or hangs fails only its own runs (crash, or
// timeout for the run whose deadline passed), is replaced, and the next run works.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { expectKind, expectOk, fakeHost, ok, sleep, untilAborted } from './helpers.ts';

async function expectHealthy(sandbox: Sandbox): Promise<void> {
  const outcome = await sandbox.run({
    code: 'return (await tools.echo({ n: 41 })).args.n + 1;',
    toolNames: ['echo'],
    hostCall: fakeHost().hostCall,
  });
  expectOk(outcome, 42);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function childPid(sandbox: ProcessSandbox): Promise<number> {
  const pid = sandbox.childPid;
  if (pid === undefined) throw new Error('no sandbox process');
  return pid;
}

describe('process isolation: crash recovery', () => {
  it('a sandbox process killed mid-run fails that run with crash; the next run gets a new process', async () => {
    const sandbox = new ProcessSandbox({ poolSize: 1, limits: { wallTimeMs: 20_000 } });
    try {
      await expectHealthy(sandbox);
      const pid = await childPid(sandbox);
      const host = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
      const pending = sandbox.run({
        code: 'await tools.hang({}); return 1;',
        toolNames: ['hang'],
        hostCall: host.hostCall,
      });
      while (host.calls.length === 0) await sleep(5);
      process.kill(pid, 'SIGKILL');
      const outcome = await pending;
      expectKind(outcome, 'crash', /sandbox process stopped/);
      // The host call of the lost run was aborted and waited for.
      expect(host.aborted).toStrictEqual([1]);
      await expectHealthy(sandbox);
      expect(await childPid(sandbox)).not.toBe(pid);
    } finally {
      await sandbox.close();
    }
  });

  it('a hung sandbox process is killed by the watchdog: the overdue run gets timeout, another run in the same process crash', async () => {
    const sandbox = new ProcessSandbox({ poolSize: 1, processes: 1, hangGraceMs: 300, limits: { wallTimeMs: 20_000 } });
    try {
      await expectHealthy(sandbox);
      const pid = await childPid(sandbox);
      const host = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
      const overdue = sandbox.run({
        code: 'await tools.hang({}); return 1;',
        toolNames: ['hang'],
        hostCall: host.hostCall,
        limits: { wallTimeMs: 500 },
      });
      const bystander = sandbox.run({
        code: 'await tools.hang({}); return 2;',
        toolNames: ['hang'],
        hostCall: host.hostCall,
      });
      while (host.calls.length < 2) await sleep(5);
      // Freeze the child: it can no longer answer anything (as if deadlocked in isolated-vm).
      process.kill(pid, 'SIGSTOP');
      expectKind(await overdue, 'timeout', /did not respond and was replaced/);
      expectKind(await bystander, 'crash');
      expect(isAlive(pid)).toBe(false);
      await expectHealthy(sandbox);
    } finally {
      await sandbox.close();
    }
  });

  it('with two sandbox processes, runs in flight are spread over both and a hung one loses only its own run', async () => {
    const sandbox = new ProcessSandbox({ poolSize: 1, processes: 2, hangGraceMs: 300, limits: { wallTimeMs: 20_000 } });
    try {
      await expectHealthy(sandbox);
      const hang = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
      const cancel = new AbortController();
      const overdue = sandbox.run({
        code: 'await tools.hang({}); return 1;',
        toolNames: ['hang'],
        hostCall: hang.hostCall,
        signal: cancel.signal,
      });
      while (hang.calls.length === 0) await sleep(5);
      const [first] = sandbox.childPids;
      expect(first).toBeDefined();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const slow = fakeHost(async () => {
        await released;
        return ok('fine');
      });
      const bystander = sandbox.run({
        code: 'return await tools.slow({});',
        toolNames: ['slow'],
        hostCall: slow.hostCall,
      });
      while (slow.calls.length === 0) await sleep(5);
      const pids = sandbox.childPids;
      expect(pids[1]).toBeDefined();
      expect(pids[1]).not.toBe(first);
      process.kill(first!, 'SIGSTOP');
      cancel.abort();
      expectKind(await overdue, 'abort', /did not respond and was replaced/);
      expect(isAlive(first!)).toBe(false);
      release();
      expectOk(await bystander, 'fine');
      await expectHealthy(sandbox);
    } finally {
      await sandbox.close();
    }
  }, 90_000); // two process starts, a hang grace and a respawn: slow on a loaded 2-core machine

  it('runs in other sandbox processes carry on while one is killed', async () => {
    const victim = new ProcessSandbox({ poolSize: 0 });
    const other = new ProcessSandbox({ poolSize: 0 });
    try {
      const host = fakeHost(async () => {
        await sleep(200);
        return ok('fine');
      });
      const survivor = other.run({
        code: 'return await tools.slow({});',
        toolNames: ['slow'],
        hostCall: host.hostCall,
      });
      const hang = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
      const lost = victim.run({ code: 'await tools.hang({});', toolNames: ['hang'], hostCall: hang.hostCall });
      while (hang.calls.length === 0) await sleep(5);
      process.kill(await childPid(victim), 'SIGKILL');
      expectKind(await lost, 'crash');
      expectOk(await survivor, 'fine');
    } finally {
      await Promise.all([victim.close(), other.close()]);
    }
  });

  it('an out-of-memory crash inside isolated-vm fails that run with memory and the sandbox keeps working', async () => {
    // A growing Map exhausts the heap in a way isolated-vm reports as catastrophic;
    // the sandbox process then retires and a fresh one takes the next runs.
    const sandbox = new ProcessSandbox({ poolSize: 1, limits: { wallTimeMs: 30_000, cpuTimeMs: 20_000 } });
    try {
      const outcome = await sandbox.run({
        code: 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });',
        toolNames: [],
        hostCall: fakeHost().hostCall,
        limits: { memoryMb: 16 },
      });
      expectKind(outcome, 'memory');
      await expectHealthy(sandbox);
    } finally {
      await sandbox.close();
    }
  });

  it('recycleAfterRuns: a sandbox process is replaced after that many runs and exits once its runs are done', async () => {
    const sandbox = new ProcessSandbox({ poolSize: 1, recycleAfterRuns: 3 });
    try {
      const pids: number[] = [];
      for (let i = 0; i < 7; i++) {
        pids.push(await childPid(sandbox));
        await expectHealthy(sandbox);
      }
      // Runs 1–3 in the first process, 4–6 in the second, 7 in the third.
      expect(new Set(pids.slice(0, 3)).size).toBe(1);
      expect(new Set(pids.slice(3, 6)).size).toBe(1);
      expect(new Set(pids).size).toBe(3);
      const retired = [pids[0]!, pids[3]!];
      while (retired.some(isAlive)) await sleep(10);
      expect(isAlive(pids[6]!)).toBe(true);
    } finally {
      await sandbox.close();
    }
  });

  it('close() ends the sandbox process and refuses new runs', async () => {
    const sandbox = new ProcessSandbox({ poolSize: 1 });
    await expectHealthy(sandbox);
    const pid = await childPid(sandbox);
    await sandbox.close();
    expect(isAlive(pid)).toBe(false);
    await expect(sandbox.run({ code: 'return 1', toolNames: [], hostCall: fakeHost().hostCall })).rejects.toThrow(
      /closed/,
    );
  });

  it('an idle sandbox that was never closed does not keep its host process alive', async () => {
    const entry = fileURLToPath(new URL('../../sandbox/index.ts', import.meta.url));
    const script = `
      const { createSandbox } = await import(${JSON.stringify(entry)});
      const sandbox = createSandbox();
      const outcome = await sandbox.run({ code: 'return 6 * 7', toolNames: [], hostCall: async () => ({ ok: true, valueJson: '1' }) });
      console.log(JSON.stringify(outcome));
    `;
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script],
        { env, timeout: 60_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    expect(JSON.parse(output)).toStrictEqual({ ok: true, logs: [], result: 42 });
  });
});

describe('process isolation: a host that exits', () => {
  it('takes a stuck sandbox process with it', async () => {
    const entry = fileURLToPath(new URL('../../sandbox/index.ts', import.meta.url));
    // The host freezes its sandbox process (as if deadlocked: it can read nothing) and exits.
    const script = `
      const { ProcessSandbox } = await import(${JSON.stringify(entry)});
      const sandbox = new ProcessSandbox({ poolSize: 0 });
      await sandbox.run({ code: 'return 1', toolNames: [], hostCall: async () => ({ ok: true, valueJson: '1' }) });
      const pid = sandbox.childPid;
      process.kill(pid, 'SIGSTOP');
      console.log(pid);
      process.exit(0);
    `;
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script],
        { env, timeout: 60_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    const pid = Number(output.trim());
    expect(Number.isInteger(pid)).toBe(true);
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(20);
    expect(isAlive(pid)).toBe(false);
  });
});
