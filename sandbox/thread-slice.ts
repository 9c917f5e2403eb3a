// Scheduler slices per thread (Linux ≥ 6.12: EEVDF's custom slice, set by sched_setattr's
// sched_runtime for SCHED_OTHER). A demoted thread (cpu-lanes.ts) spins at nice 19; EEVDF
// lets the thread on a CPU finish its slice before a woken one runs (run to parity), so a
// thread of an ordinary run, woken ~10 times a run, could wait up to a slice at each wake-up
// beside the spinners. A waking thread whose slice is shorter than the running one's
// preempts it at once; so a demoted thread gets a long slice (LONG_SLICE_NS) and keeps its
// small weight: the spinners lose nothing they had, their CPU share is still nice 19's, and
// every thread at the default slice now preempts them on waking. Measured on a 2-vCPU guest
// (kernel 6.18, 50 nice-19 spinners): a sleeping thread's wake-up p99 4.4 ms → 0.12 ms.
//
// Node has no call for sched_setattr; koffi (libc-calls.ts) makes the system call. Without
// it, on older kernels (which ignore the field), on other systems or architectures,
// nothing changes and the nice value alone demotes.
import { readFileSync } from 'node:fs';
import { arch } from 'node:process';
import { libcCalls } from './libc-calls.ts';

/** The slice a demoted thread gets: the longest that keeps a spinner from starving its
 * peers (the kernel clamps to 0.1–100 ms). Waking threads at the default slice (under 3 ms:
 * it grows with the CPU count, 1.4 ms on 2 CPUs) preempt it. */
export const LONG_SLICE_NS = 20_000_000n;

/** sched_setattr / sched_getattr system call numbers (the architectures Node ships for Linux). */
const SYSCALLS: Readonly<Record<string, { readonly set: number; readonly get: number }>> = {
  x64: { set: 314, get: 315 },
  arm64: { set: 274, get: 275 },
};

/** struct sched_attr (uapi/linux/sched/types.h), version 1: 56 bytes. koffi reads a 64-bit
 * field as a number when it fits one. */
interface SchedAttr {
  size: number;
  sched_policy: number;
  sched_flags: bigint | number;
  sched_nice: number;
  sched_priority: number;
  sched_runtime: bigint | number;
  sched_deadline: bigint | number;
  sched_period: bigint | number;
  util_min: number;
  util_max: number;
}
const SCHED_ATTR_SIZE = 56;
/** The one flag sched_getattr reports for these policies; sched_setattr without it clears it
 * (as root) or is refused (EPERM otherwise), so it is passed back as read. */
const SCHED_FLAG_RESET_ON_FORK = 1n;
/** SCHED_OTHER and SCHED_BATCH: the policies whose slice sched_runtime sets. */
const FAIR_POLICIES = new Set([0, 3]);

interface SliceCalls {
  get(tid: number): SchedAttr | undefined;
  set(tid: number, attr: SchedAttr): boolean;
}

let loaded: SliceCalls | null | undefined;

/** Loads koffi and libc once; null where slices cannot be set (see the header). */
function sliceCalls(): SliceCalls | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  const numbers = SYSCALLS[arch];
  const calls = libcCalls();
  if (calls === null || numbers === undefined) return loaded;
  try {
    const { koffi, libc } = calls;
    // Unnamed: koffi's type names are process-wide, and a second copy of this module (two
    // copies of the package in one process) would be refused a name already taken.
    const attrType = koffi.struct({
      size: 'uint32',
      sched_policy: 'uint32',
      sched_flags: 'uint64',
      sched_nice: 'int32',
      sched_priority: 'uint32',
      sched_runtime: 'uint64',
      sched_deadline: 'uint64',
      sched_period: 'uint64',
      util_min: 'uint32',
      util_max: 'uint32',
    });
    if (koffi.sizeof(attrType) !== SCHED_ATTR_SIZE) return loaded;
    const syscall = libc.func('long syscall(long number, ...)');
    loaded = {
      get(tid) {
        const attr = emptyAttr();
        const result = syscall(
          numbers.get,
          'int',
          tid,
          koffi.out(koffi.pointer(attrType)),
          attr,
          'uint',
          SCHED_ATTR_SIZE,
          'uint',
          0,
        );
        return result === 0 ? attr : undefined;
      },
      set(tid, attr) {
        return syscall(numbers.set, 'int', tid, koffi.pointer(attrType), attr, 'uint', 0) === 0;
      },
    };
  } catch {
    loaded = null; // this koffi cannot declare the call
  }
  return loaded;
}

function emptyAttr(): SchedAttr {
  return {
    size: SCHED_ATTR_SIZE,
    sched_policy: 0,
    sched_flags: 0n,
    sched_nice: 0,
    sched_priority: 0,
    sched_runtime: 0n,
    sched_deadline: 0n,
    sched_period: 0n,
    util_min: 0,
    util_max: 0,
  };
}

/** Whether slices can be set here (loads koffi on the first call, a few milliseconds). */
export function slicesAvailable(): boolean {
  return sliceCalls() !== null;
}

/**
 * Sets thread `tid`'s slice (nanoseconds; 0 gives it the kernel's default back), keeping
 * its policy, nice value and reset-on-fork flag. Returns the slice it had (0 on kernels
 * without slices), for restoreThreadSlice; undefined if slices are not available here, the
 * thread is not SCHED_OTHER or SCHED_BATCH (or has ended), or the kernel refused.
 */
export function setThreadSlice(tid: number, sliceNs: bigint): bigint | undefined {
  const calls = sliceCalls();
  if (calls === null) return undefined;
  const attr = calls.get(tid);
  if (attr === undefined || !FAIR_POLICIES.has(attr.sched_policy)) return undefined;
  const previous = BigInt(attr.sched_runtime);
  attr.size = SCHED_ATTR_SIZE;
  attr.sched_flags = BigInt(attr.sched_flags) & SCHED_FLAG_RESET_ON_FORK;
  attr.sched_runtime = sliceNs;
  attr.sched_deadline = 0n;
  attr.sched_period = 0n;
  return calls.set(tid, attr) ? previous : undefined;
}

/**
 * Gives thread `tid` back the slice `previous` that setThreadSlice returned: the kernel's
 * default if that is what it had (sched_getattr reports the default as a number, so the
 * default is set and read back), else that custom slice (threads inherit their creator's,
 * so the process may have been started with one). False as setThreadSlice's undefined.
 */
export function restoreThreadSlice(tid: number, previous: bigint): boolean {
  if (setThreadSlice(tid, 0n) === undefined) return false;
  const now = sliceCalls()?.get(tid)?.sched_runtime;
  if (now === undefined) return false;
  return BigInt(now) === previous || setThreadSlice(tid, previous) !== undefined;
}

/** Thread `tid`'s slice as the kernel reports it (`se.slice` in /proc; Linux ≥ 6.12), in ns. */
export function readThreadSlice(tid: number, pid: number | 'self' = 'self'): bigint | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/task/${tid}/sched`, 'utf8');
    const match = /^se\.slice\s*:\s*(\d+)/m.exec(text);
    return match?.[1] === undefined ? undefined : BigInt(match[1]);
  } catch {
    return undefined;
  }
}
