// A child process whose main thread is stuck (deadlocked inside isolated-vm, or busy in
// one long native operation of Monty) never sees its host go away; the host takes its
// live children with it when it exits.
import type { ChildProcess } from 'node:child_process';

const liveProcesses = new Set<ChildProcess>();
let exitHookInstalled = false;

/** The host kills `childProcess` (SIGKILL) when it exits. */
export function killOnHostExit(childProcess: ChildProcess): void {
  liveProcesses.add(childProcess);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const live of liveProcesses) {
      try {
        live.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** `childProcess` is gone: nothing to kill at exit. */
export function forgetOnHostExit(childProcess: ChildProcess): void {
  liveProcesses.delete(childProcess);
}
