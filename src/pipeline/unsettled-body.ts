// The report of a tool body that kept running after its call was given up on: its
// deadline fired (timeout policy) or its caller aborted, and it ignored its signal for
// a whole grace period. The call has already failed; the body may still have side
// effects, so it is reported, never leaked silently.

export interface UnsettledBody {
  readonly callId: string;
  readonly name: string;
  readonly agent: string | undefined;
  /** `timeout`: its `timeoutMs` deadline fired; `aborted`: its caller's signal aborted (a cancelled turn, an ended run_code run). */
  readonly reason: 'timeout' | 'aborted';
  /** The deadline that fired (`reason: 'timeout'`), else undefined. */
  readonly timeoutMs: number | undefined;
  readonly graceMs: number;
  /** Settles when the body finally does (never rejects). */
  readonly settled: Promise<void>;
}

export type UnsettledBodyReporter = (report: UnsettledBody) => void;

/** How long an aborted body may take to settle before its call is given up on. @default 1000 */
export const DEFAULT_GRACE_MS = 1000;

/** The default report: a process warning. */
export const warnUnsettled: UnsettledBodyReporter = (r) => {
  const why =
    r.reason === 'timeout' ? `ignored its ${String(r.timeoutMs)} ms timeout` : 'ignored the abort of its call';
  process.emitWarning(
    `tool "${r.name}" (call ${r.callId}) ${why} and was still running ${r.graceMs} ms later`,
    'ToolTimeoutWarning',
  );
};

/** Calls `report`; a reporting callback cannot change an outcome. */
export function reportUnsettled(report: UnsettledBodyReporter, body: UnsettledBody): void {
  try {
    report(body);
  } catch {
    // ignored on purpose
  }
}

// Tools whose body bounds its own wait after an abort. run_code is one: the sandbox ends
// the run at once and its nested calls are given up on by themselves, so giving up on
// run_code's body as well would only race them (and report a body that does settle).
const selfBounded = new WeakSet<object>();

/** Marks a built-in tool whose body settles on its own, within a bound, after an abort. */
export function markSelfBounded(tool: object): void {
  selfBounded.add(tool);
}

export function isSelfBounded(tool: object): boolean {
  return selfBounded.has(tool);
}
