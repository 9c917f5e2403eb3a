// Placement of a run that blocks on its calls one after another. Each such call is two
// thread hand-offs: the isolate's thread wakes the thread that answers the call (the host's
// main thread in-process, the sandbox process's main thread otherwise) and sleeps; the
// answer wakes it back. When the two threads sit on different CPUs, each hand-off wakes a
// CPU that went idle meanwhile, and on a virtual machine that wake-up (an IPI and the
// vCPU's halt exit) costs several times the call's own work: measured on a 2-vCPU guest,
// sequential in-process calls took 87–125 µs unpinned against 25–55 µs with both threads on
// one CPU (bench/README "Placement of a blocking streak"). The kernel does not keep them
// together by itself: the answering thread is woken by an eventfd, which carries no
// "the waker is about to sleep" hint.
//
// So while exactly one run is in flight in this process and it blocks on call after call,
// its isolate's thread and the answering thread are held on the CPU the answering thread
// is on, and let go as soon as anything else happens: a second run starts, the run ends,
// or no call comes for a tick (5 ms; the guest computes, or waits the asynchronous way).
// The placement is measured, not assumed: calls are timed before and after, and if the
// held calls do not take at most 0.8 of the free ones' time it is let go for the rest of the
// streak (measured again after 128 calls, then 256, ...); once kept, every 64 calls it is
// let go (and measured afresh) if the calls have become slower than 1.25 times the free
// ones. Linux only, through koffi (thread-affinity.ts); elsewhere nothing changes.
import {
  affinityAvailable,
  cpusOf,
  currentCpu,
  currentThreadId,
  setThreadAffinity,
  singleCpuMask,
  threadAffinity,
} from './thread-affinity.ts';
import { NOT_ISOLATE_THREADS, threadIds, threadName, threadSchedstat, voluntarySwitches } from './thread-cpu-times.ts';

export interface PlacementTuning {
  /** Blocking calls in a row before the threads are sampled (short programs are left alone). */
  warmCalls: number;
  /** Calls over which each of the two rates (free, then held) is measured. */
  sampleCalls: number;
  /** A gap this long between two calls ends a streak before it is held. */
  streakGapMs: number;
  /** While held: a tick without a call lets go. */
  idleTickMs: number;
  /** Held calls must take at most this share of the free ones' time to stay held. */
  minGain: number;
  /** Once kept, every this many calls the hold is checked again: clearly slower than the free calls were, it is let go. */
  recheckCalls: number;
  /** "Clearly slower" at a check: held calls taking more than this many times the free ones' time. */
  recheckSlack: number;
  /** Calls after a decline before the streak is measured again (doubling at each decline of the run). */
  retryCalls: number;
}

/** The placement's thresholds (process-wide; tests and benchmarks may change them). */
export const placementTuning: PlacementTuning = {
  warmCalls: 8,
  sampleCalls: 6,
  streakGapMs: 2,
  idleTickMs: 5,
  minGain: 0.8,
  recheckCalls: 64,
  recheckSlack: 1.25,
  retryCalls: 128,
};

type Phase = 'warm' | 'sampling' | 'held' | 'declined';

interface Held {
  readonly tid: number;
  readonly previous: Uint8Array;
}

/** What a hold changed: the threads it set, and what it needs to find threads started meanwhile. */
interface Hold {
  readonly threads: Held[];
  readonly mask: Uint8Array;
  /** The answering thread's mask before, which threads it starts meanwhile would have had. */
  readonly inherited: Uint8Array;
  /** The threads alive when the hold began. */
  readonly known: ReadonlySet<number>;
}

interface Streak {
  readonly owner: object;
  phase: Phase;
  calls: number;
  lastCallAt: number;
  /** When the current measurement began, and the threads' CPU and sleeps then. */
  since: number;
  cpuBefore: Map<number, ThreadSample> | undefined;
  freeMsPerCall: number;
  hold: Hold | undefined;
  timer: ReturnType<typeof setInterval> | undefined;
  callsAtTick: number;
  /** While declined: the calls to wait before measuring again (doubles at each decline). */
  retryAfter: number;
}

/** What happened, for tests and the bench (process-wide counts). */
export const placementStats = { held: 0, kept: 0, declined: 0, letGo: 0, outgrown: 0 };

/** Runs in flight in this process: every run counts, placed or not. */
let runsInFlight = 0;
let streak: Streak | undefined;

/** A run started in this process. */
export function placementRunStarted(): void {
  runsInFlight += 1;
  if (runsInFlight > 1) guarded(endStreak);
}

/** A run ended in this process. */
export function placementRunEnded(owner: object): void {
  runsInFlight = Math.max(0, runsInFlight - 1);
  if (streak?.owner === owner) guarded(endStreak);
}

/**
 * Run `owner`'s guest is blocked on a call, and this (the answering) thread is about to
 * answer it. Cheap when nothing changes: a counter and a clock read.
 */
export function placementBlockingCall(owner: object): void {
  if (runsInFlight !== 1 || broken) return;
  // Not through guarded(): no closure per nested call.
  try {
    blockingCall(owner);
  } catch {
    stopPlacement();
  }
}

/** A placement call threw (koffi, the C library): placement stops for this process. */
let broken = false;

// Called from a run's blocking path, its end and a timer: what fails here must not fail
// the run (or leave it never ended), nor reach the host as an uncaught exception.
function guarded(action: () => void): void {
  try {
    action();
  } catch {
    stopPlacement();
  }
}

function stopPlacement(): void {
  broken = true;
  const current = streak;
  streak = undefined;
  if (current === undefined) return;
  try {
    // Best effort (its timer cleared first): give back what can be given back.
    letGo(current);
  } catch {
    // nothing more to do
  }
}

function blockingCall(owner: object): void {
  const now = performance.now();
  let current = streak;
  if (current === undefined || current.owner !== owner) {
    endStreak();
    if (!affinityAvailable()) return;
    current = newStreak(owner, now);
    streak = current;
  }
  if (current.phase === 'declined' || current.phase === 'held') {
    current.calls += 1;
    if (current.phase === 'declined') {
      // Not now is not never: the 6 free calls may have met a moment when the CPUs stayed
      // awake, and the run may go on for long. Measured again later, ever more rarely.
      if (current.calls >= current.retryAfter) {
        current.retryAfter *= 2;
        rewarm(current, now);
      }
      return;
    }
    const judgedAt = placementTuning.warmCalls + 2 * placementTuning.sampleCalls;
    if (current.calls === judgedAt) judge(current, now);
    else if (current.calls > judgedAt && (current.calls - judgedAt) % placementTuning.recheckCalls === 0)
      recheck(current, now);
    return;
  }
  if (now - current.lastCallAt > placementTuning.streakGapMs) {
    // Not one call after another: start counting again.
    current.calls = 0;
    current.phase = 'warm';
  }
  current.lastCallAt = now;
  current.calls += 1;
  if (current.phase === 'warm' && current.calls === placementTuning.warmCalls) {
    current.phase = 'sampling';
    current.cpuBefore = threadSamples(threadIds(), currentThreadId());
    // The free calls are timed from after that read (~10 us a thread): in the time, it
    // would make them look slower than the held ones, which are timed without it.
    current.since = performance.now();
  } else if (
    current.phase === 'sampling' &&
    current.calls === placementTuning.warmCalls + placementTuning.sampleCalls
  ) {
    hold(current, now);
  }
}

function newStreak(owner: object, now: number): Streak {
  return {
    owner,
    phase: 'warm',
    calls: 0,
    lastCallAt: now,
    since: now,
    cpuBefore: undefined,
    freeMsPerCall: 0,
    hold: undefined,
    timer: undefined,
    callsAtTick: 0,
    retryAfter: placementTuning.retryCalls,
  };
}

/** Holds the answering thread and the isolate's thread (busiestSince) on this CPU. */
function hold(current: Streak, now: number): void {
  current.freeMsPerCall = (now - current.since) / placementTuning.sampleCalls;
  const self = currentThreadId();
  const cpu = currentCpu();
  const before = current.cpuBefore;
  current.cpuBefore = undefined;
  const tids = threadIds();
  const after = before === undefined ? undefined : threadSamples(tids, self, before);
  const isolateThread =
    self === undefined || before === undefined || after === undefined ? undefined : busiestSince(before, after, self);
  if (self === undefined || cpu === undefined || isolateThread === undefined) {
    decline(current);
    return;
  }
  const mask = singleCpuMask(cpu);
  const inherited = threadAffinity(self);
  if (inherited === undefined || !mayHold(inherited, cpu)) {
    decline(current);
    return;
  }
  const hold: Hold = { threads: [], mask, inherited, known: new Set(tids) };
  current.hold = hold;
  for (const tid of [self, isolateThread]) {
    const previous = tid === self ? inherited : threadAffinity(tid);
    if (previous === undefined || !mayHold(previous, cpu) || !setThreadAffinity(tid, mask)) {
      letGo(current);
      decline(current);
      return;
    }
    hold.threads.push({ tid, previous });
  }
  placementStats.held += 1;
  current.phase = 'held';
  current.since = performance.now();
  current.callsAtTick = current.calls;
  current.timer = setInterval(() => {
    if (current.calls !== current.callsAtTick) {
      current.callsAtTick = current.calls;
      return;
    }
    // No call for a tick: let go; a later streak of the same run is measured afresh.
    guarded(() => letGo(current));
    rewarm(current, performance.now());
  }, placementTuning.idleTickMs);
  current.timer.unref?.();
}

/** Keeps the placement only if the held calls were measurably faster. */
function judge(current: Streak, now: number): void {
  const heldMsPerCall = (now - current.since) / placementTuning.sampleCalls;
  if (heldMsPerCall <= placementTuning.minGain * current.freeMsPerCall) {
    placementStats.kept += 1;
    current.since = now;
    return;
  }
  placementStats.declined += 1;
  letGo(current);
  decline(current);
}

/**
 * A kept hold, checked again: other work may have come to the held CPU since (the pair
 * cannot move off it while held). Slower than the free calls were, it is let go, and the
 * streak is measured afresh (it may be held again, on the CPU the answering thread is on then).
 */
function recheck(current: Streak, now: number): void {
  const heldMsPerCall = (now - current.since) / placementTuning.recheckCalls;
  current.since = now;
  // A margin: the 6 free calls may have met a moment when the CPUs stayed awake.
  if (heldMsPerCall <= placementTuning.recheckSlack * current.freeMsPerCall) return;
  placementStats.outgrown += 1;
  letGo(current);
  rewarm(current, now);
}

/** Counted afresh from here: the streak is sampled again after warmCalls more calls. */
function rewarm(current: Streak, now: number): void {
  current.phase = 'warm';
  current.calls = 0;
  current.lastCallAt = now;
}

/** Not held now: calls are counted from here to the next measurement (retryAfter). */
function decline(current: Streak): void {
  current.phase = 'declined';
  current.calls = 0;
}

function endStreak(): void {
  const current = streak;
  streak = undefined;
  if (current !== undefined) letGo(current);
}

function letGo(current: Streak): void {
  clearInterval(current.timer);
  current.timer = undefined;
  const hold = current.hold;
  current.hold = undefined;
  if (hold === undefined) return;
  if (hold.threads.length > 0) placementStats.letGo += 1;
  // A thread whose mask is no longer the held one was set meanwhile by someone else (the
  // application, or the kernel as the cgroup's cpuset changed): that mask stays.
  for (const { tid, previous } of hold.threads) {
    const now = threadAffinity(tid);
    if (now !== undefined && sameMask(now, hold.mask)) setThreadAffinity(tid, previous);
  }
  // A thread the answering thread started meanwhile (a tool's worker, libuv's pool starting
  // up) inherited the held mask: it gets the mask it would have had.
  for (const tid of threadIds()) {
    if (hold.known.has(tid)) continue;
    const mask = threadAffinity(tid);
    if (mask !== undefined && sameMask(mask, hold.mask)) setThreadAffinity(tid, hold.inherited);
  }
}

/**
 * Whether a thread with this mask may be held on `cpu`: a mask of one CPU is someone's
 * placement (the application's, or a hold by another copy of this module, in a worker
 * thread or another version of the package, which counts only its own runs), never
 * recorded as one to give back; and a thread is not moved to a CPU its mask excludes.
 */
function mayHold(mask: Uint8Array, cpu: number): boolean {
  const cpus = cpusOf(mask);
  return cpus.length > 1 && cpus.includes(cpu);
}

function sameMask(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

interface ThreadSample {
  /** Nanoseconds on a CPU. */
  readonly ns: number;
  /** Times the scheduler put it on a CPU. */
  readonly runs: number;
  /** Times it gave the CPU up by itself. */
  readonly slept: number;
}

/** Sleeps through the sampled calls that tell the isolate's thread (busiestSince). */
function sleepsNeeded(): number {
  return Math.ceil(placementTuning.sampleCalls / 2);
}

/**
 * CPU time and sleeps of the threads that may be the isolate's: not `self` (the answering
 * thread), not one Node, V8 or libuv named for itself. Two files a thread, read while a
 * call waits for its answer: of a Node process's ~10 threads, only isolated-vm's and the
 * application's own are read (each thread's name is read once, notIsolate). After the
 * sampled calls (`before` given), only the threads sampled before, and the sleeps only of
 * those put on a CPU often enough to have slept sleepsNeeded() times: each sleep but the
 * last is followed by a switch back to the thread, and one more sleep may fall between the
 * reads of its two files (in practice: the idle threads of isolated-vm's pool are skipped).
 */
function threadSamples(
  tids: readonly number[],
  self: number | undefined,
  before?: ReadonlyMap<number, ThreadSample>,
): Map<number, ThreadSample> {
  const samples = new Map<number, ThreadSample>();
  forgetEnded(tids);
  for (const tid of tids) {
    const start = before?.get(tid);
    if (tid === self || (before === undefined ? isNotIsolate(tid) : start === undefined)) continue;
    const stat = threadSchedstat(tid);
    if (stat === undefined || (start !== undefined && stat.runs - start.runs < sleepsNeeded() - 2)) continue;
    const slept = voluntarySwitches(tid);
    if (slept !== undefined) samples.set(tid, { ns: stat.ns, runs: stat.runs, slept });
  }
  return samples;
}

/**
 * The isolate's thread in a streak: of the threads other than `self` that slept through
 * the sampled calls (it waits for each answer), the one that ran most from `before` to
 * `after`. A thread that computes all along (the application's worker, a runaway isolate)
 * runs more but never sleeps: holding it with this one would halve both.
 */
function busiestSince(
  before: ReadonlyMap<number, ThreadSample>,
  after: ReadonlyMap<number, ThreadSample>,
  self: number,
): number | undefined {
  const ranked: { tid: number; ran: number }[] = [];
  for (const [tid, { ns, slept }] of after) {
    const start = before.get(tid);
    if (tid === self || start === undefined || slept - start.slept < sleepsNeeded()) continue;
    const ran = ns - start.ns;
    if (ran > 0) ranked.push({ tid, ran });
  }
  ranked.sort((a, b) => b.ran - a.ran);
  // Its name read afresh: a thread names itself just after it starts, maybe after the
  // name notIsolate keeps was read.
  for (const { tid } of ranked) if (!readNotIsolate(tid)) return tid;
  return undefined;
}

/** Per thread id, whether its name (read once) is one of NOT_ISOLATE_THREADS. */
const notIsolate = new Map<number, boolean>();

function isNotIsolate(tid: number): boolean {
  return notIsolate.get(tid) ?? readNotIsolate(tid);
}

/** Reads thread `tid`'s name now and keeps whether it is one of NOT_ISOLATE_THREADS. */
function readNotIsolate(tid: number): boolean {
  const excluded = NOT_ISOLATE_THREADS.has(threadName(tid));
  notIsolate.set(tid, excluded);
  return excluded;
}

/** Forgets the threads that have ended (a later thread may get the id again). */
function forgetEnded(tids: readonly number[]): void {
  if (notIsolate.size === 0) return;
  const alive = new Set(tids);
  for (const tid of notIsolate.keys()) if (!alive.has(tid)) notIsolate.delete(tid);
}
