// Where a silent sandbox process's main thread sits, for the watchdog's message: the
// system call it is blocked in (/proc/<pid>/syscall), named for the calls a Node process
// waits in. "sleeping" alone cannot tell an idle event loop (epoll_wait) from a thread
// stuck in a read on one of its pipes, or on a lock (futex).
import { readFileSync } from 'node:fs';
import { ANSWER_FD } from './blocking-call-pipe.ts';

/** Names of the system calls a waiting Node thread is usually in, by number, per architecture. */
const NAMES: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  x64: {
    0: 'read',
    1: 'write',
    7: 'poll',
    23: 'select',
    35: 'nanosleep',
    61: 'wait4',
    202: 'futex',
    230: 'clock_nanosleep',
    232: 'epoll_wait',
    270: 'pselect6',
    271: 'ppoll',
    281: 'epoll_pwait',
    441: 'epoll_pwait2',
  },
  arm64: {
    22: 'epoll_pwait',
    63: 'read',
    64: 'write',
    72: 'pselect6',
    73: 'ppoll',
    98: 'futex',
    101: 'nanosleep',
    115: 'clock_nanosleep',
    260: 'wait4',
    441: 'epoll_pwait2',
  },
};

/** Calls whose first argument is a file descriptor worth naming. */
const ON_FD = new Set(['read', 'write']);

/**
 * The system call `pid`'s main thread is blocked in, in words ("read on fd 4",
 * "epoll_wait", "syscall 17"); undefined when it is running or /proc cannot tell
 * (not Linux, the process is gone, no permission).
 */
export function describeMainThreadSyscall(pid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/syscall`, 'latin1').trim();
  } catch {
    return undefined;
  }
  const [number, firstArg] = text.split(' ');
  const call = Number(number);
  if (!Number.isSafeInteger(call) || call < 0) return undefined;
  const name = NAMES[process.arch]?.[call];
  if (name === undefined) return `syscall ${call}`;
  const fd = firstArg === undefined ? Number.NaN : Number.parseInt(firstArg, 16);
  return ON_FD.has(name) && Number.isSafeInteger(fd) ? `${name} on fd ${fd}` : name;
}

/**
 * Words for the message of a process killed for its silence: its main thread's state and,
 * asleep, the system call it sat in (an idle event loop; a read on the blocking-call pipe,
 * which the host releases; a lock), and whether the host still owed it an answer.
 * Empty where /proc cannot tell the state.
 */
export function silentMainThreadWords(pid: number | undefined, state: string | undefined, owedAnswer: boolean): string {
  if (state === undefined) return '';
  const syscall = state === 'sleeping' && pid !== undefined ? describeMainThreadSyscall(pid) : undefined;
  let where = syscall === undefined ? '' : ` in ${syscall}`;
  if (syscall === `read on fd ${ANSWER_FD}`) where += ', waiting for the answer to a blocking call';
  if (owedAnswer) where += ', a call the host had not yet answered or released';
  return ` (its main thread was ${state}${where})`;
}
