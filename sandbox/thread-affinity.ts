// Per-thread CPU affinity (Linux: sched_getaffinity / sched_setaffinity through koffi,
// libc-calls.ts), for the placement of a run that blocks on its calls one after another
// (blocking-streak-placement.ts). Everything returns undefined or false where the calls
// are not available, and the caller then changes nothing.
import { arch } from 'node:process';
import { libcCalls } from './libc-calls.ts';

/** A CPU mask as the kernel takes it: 1,024 CPUs, one bit each. */
export const MASK_BYTES = 128;

/** gettid's system call number (the architectures Node ships for Linux). */
const GETTID: Readonly<Record<string, number>> = { x64: 186, arm64: 178 };

interface AffinityCalls {
  get(tid: number, mask: Uint8Array): number;
  set(tid: number, mask: Uint8Array): number;
  cpu(): number;
  tid(): number;
}

let loaded: AffinityCalls | null | undefined;

function affinityCalls(): AffinityCalls | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  const calls = libcCalls();
  const gettid = GETTID[arch];
  if (calls === null || gettid === undefined) return loaded;
  try {
    const { libc } = calls;
    const get = libc.func('int sched_getaffinity(int pid, size_t size, _Out_ uint8_t *mask)');
    const set = libc.func('int sched_setaffinity(int pid, size_t size, uint8_t *mask)');
    const cpu = libc.func('int sched_getcpu()');
    const syscall = libc.func('long syscall(long number)');
    loaded = {
      get: (tid, mask) => get(tid, MASK_BYTES, mask) as number,
      set: (tid, mask) => set(tid, MASK_BYTES, mask) as number,
      cpu: () => cpu() as number,
      tid: () => Number(syscall(gettid)),
    };
  } catch {
    loaded = null; // this koffi cannot declare the calls
  }
  return loaded;
}

/** Whether affinities can be read and set here (loads koffi on the first call). */
export function affinityAvailable(): boolean {
  return affinityCalls() !== null;
}

/** The calling thread's id (its tid), or undefined. */
export function currentThreadId(): number | undefined {
  return affinityCalls()?.tid();
}

/** The CPU the calling thread runs on now, or undefined. */
export function currentCpu(): number | undefined {
  const cpu = affinityCalls()?.cpu();
  return cpu === undefined || cpu < 0 ? undefined : cpu;
}

/** Thread `tid`'s CPU mask, or undefined (no calls here, or the thread has ended). */
export function threadAffinity(tid: number): Uint8Array | undefined {
  const calls = affinityCalls();
  if (calls === null) return undefined;
  const mask = new Uint8Array(MASK_BYTES);
  // The call returns the size it wrote (the raw system call) or 0 (glibc's wrapper).
  return calls.get(tid, mask) >= 0 ? mask : undefined;
}

/** Sets thread `tid`'s CPU mask; false if it could not (no calls, ended, or refused). */
export function setThreadAffinity(tid: number, mask: Uint8Array): boolean {
  const calls = affinityCalls();
  return calls !== null && mask.length === MASK_BYTES && calls.set(tid, mask) === 0;
}

/** The mask of one CPU. */
export function singleCpuMask(cpu: number): Uint8Array {
  const mask = new Uint8Array(MASK_BYTES);
  mask[cpu >> 3] = 1 << (cpu & 7);
  return mask;
}

/** The CPUs in a mask. */
export function cpusOf(mask: Uint8Array): number[] {
  const cpus: number[] = [];
  for (let i = 0; i < mask.length * 8; i++) if (((mask[i >> 3] ?? 0) >> (i & 7)) & 1) cpus.push(i);
  return cpus;
}
