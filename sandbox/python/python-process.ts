// The Python process: a child of the host that runs Python programs in Monty, one job (a
// run or a type check) at a time, so the host's thread never runs Python and a runaway or
// a fault in Monty's native code ends this process only. The host (python-child.ts)
// forks it, hands it jobs over IPC, answers its runs' calls, and kills it when a stretch
// of Python outlives its budget.
import type { HostCallOutcome } from '../types.ts';
import { loadMonty, type MontyModule } from './load-monty.ts';
import type { HostToPython, PythonToHost } from './python-messages.ts';
import { PARKED, type PythonCallAnswer, PythonProgramRun } from './python-program-run.ts';
import { typeCheckProgram } from './python-type-check.ts';

/** The call the current run waits on: the host's answer or stop settles it. */
let waiting: { readonly jobId: number; readonly settle: (answer: PythonCallAnswer) => void } | undefined;

function send(message: PythonToHost): void {
  // The host is gone: nothing is left to do here.
  if (!process.connected) process.exit(0);
  process.send?.(message);
}

function startRun(m: MontyModule, message: Extract<HostToPython, { type: 'run' }>): void {
  const { jobId } = message;
  const run = new PythonProgramRun(m, message, {
    call: (seq, tool, argsJson) =>
      new Promise<PythonCallAnswer>((settle) => {
        waiting = { jobId, settle };
        send({ type: 'call', jobId, seq, tool, argsJson });
      }),
    park: (seq, tool, argsJson, parked) => send({ type: 'call', jobId, seq, tool, argsJson, parked }),
    log: (line) => send({ type: 'log', jobId, line }),
    logsTruncated: (by) => send({ type: 'logs-truncated', jobId, by }),
  });
  void run.drive().then((end) => {
    if (end !== PARKED) send({ type: 'done', jobId, end });
  });
}

function answer(jobId: number, reply: PythonCallAnswer): void {
  if (waiting?.jobId !== jobId) return;
  const { settle } = waiting;
  waiting = undefined;
  settle(reply);
}

function onMessage(m: MontyModule, message: HostToPython): void {
  switch (message.type) {
    case 'run':
      startRun(m, message);
      return;
    case 'answer':
      answer(message.jobId, { outcome: message.outcome as HostCallOutcome, reload: message.reload });
      return;
    case 'stop':
      answer(message.jobId, { stop: true, suspend: message.suspend });
      return;
    case 'check':
      send({ type: 'checked', jobId: message.jobId, check: typeCheckProgram(m, message.code, message.prefix) });
      return;
  }
}

try {
  const m = await loadMonty();
  process.on('message', (message) => onMessage(m, message as HostToPython));
  // The host went away: so does this process.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' });
} catch (error) {
  const message: PythonToHost = { type: 'unusable', message: error instanceof Error ? error.message : String(error) };
  process.send?.(message, () => process.exit(1));
}
