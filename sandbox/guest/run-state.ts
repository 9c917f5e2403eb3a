// The state of the one run this context serves: budgets from `configure`, counters, and
// the calls waiting for an answer or a slot. Records keep Object.prototype out of their
// chain (bare-record.ts) and are never arrays: an index setter the program plants on
// Array.prototype must not intercept them.
import { bareRecordClass } from './bare-record.ts';
import { post } from './host-link.ts';
import { create } from './intrinsics.ts';

export interface PendingCall {
  readonly name: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface QueuedCall {
  readonly seq: number;
  readonly name: string;
  readonly args: string;
}

class PendingRecord implements PendingCall {
  readonly name: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  constructor(name: string, resolve: (value: unknown) => void, reject: (error: unknown) => void) {
    this.name = name;
    this.resolve = resolve;
    this.reject = reject;
  }
}
bareRecordClass(PendingRecord);

class QueuedRecord implements QueuedCall {
  readonly seq: number;
  readonly name: string;
  readonly args: string;
  constructor(seq: number, name: string, args: string) {
    this.seq = seq;
    this.name = name;
    this.args = args;
  }
}
bareRecordClass(QueuedRecord);

export const pendingCall = (
  name: string,
  resolve: (value: unknown) => void,
  reject: (error: unknown) => void,
): PendingCall => new PendingRecord(name, resolve, reject);

export const queuedCall = (seq: number, name: string, args: string): QueuedCall => new QueuedRecord(seq, name, args);

class RunState {
  configured = false;
  started = false;
  settled = false;
  maxCalls = 0;
  maxConcurrent = 1;
  maxLogBytes = 0;
  maxLogLines = 0;
  logLineMinBytes = 0;
  maxResultBytes = 0;
  maxArgsBytes = 0;
  offHeapLeft = 0;
  offHeapTotal = 0;
  /** The Node line the guest follows where lines differ (GuestConfig.nodeMajor). */
  nodeMajor = 24;
  calls = 0;
  inFlight = 0;
  logBytes = 0;
  logLines = 0;
  logsClosed = false;
  queueHead = 0;
  queueTail = 0;
}
bareRecordClass(RunState);

export const run = new RunState();

export const pending: Record<number, PendingCall | undefined> = create(null) as Record<number, PendingCall | undefined>;
export const queue: Record<number, QueuedCall | undefined> = create(null) as Record<number, QueuedCall | undefined>;

/** Ends the run from inside with a limit or a broken invariant (once). */
export function fatal(kind: 'call-limit' | 'memory' | 'exception', message: string): void {
  if (run.settled) return;
  run.settled = true;
  post({ __proto__: null, t: 'limit', kind, message });
}
