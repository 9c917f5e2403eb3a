// When a durable run pauses: a gated call whose approval answered `pause` is held (the
// program never gets an answer for it), and the run goes on until nothing else can
// happen — no host call of the run is in flight and none arrived for `settleMs` after
// the last one ended (time for the program to react to the last answer). Then every
// held call is pending together: a Promise.all of three gated writes pauses once, with
// three pending.
import type { HostCallOutcome } from '../../sandbox/types.ts';
import type { PendingApproval } from '../journal/run-journal-events.ts';

/** How long the run must be quiet (no host call in flight, none new) before it pauses. */
export const PAUSE_SETTLE_MS = 100;

export class PauseDetector {
  readonly #settleMs: number;
  readonly #onQuiet: () => void;
  readonly #pending: PendingApproval[] = [];
  readonly #held: ((outcome: HostCallOutcome) => void)[] = [];
  #active = 0;
  #activity = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #paused = false;

  constructor(onQuiet: () => void, settleMs: number = PAUSE_SETTLE_MS) {
    this.#onQuiet = onQuiet;
    this.#settleMs = settleMs;
  }

  /** Whether the run paused (its held calls were given up). */
  get paused(): boolean {
    return this.#paused;
  }

  /** The calls awaiting approval, in program order. */
  get pending(): readonly PendingApproval[] {
    return [...this.#pending].sort((a, b) => seqOf(a.callId) - seqOf(b.callId));
  }

  /** A host call of the program arrived. */
  enter(): void {
    this.#active += 1;
    this.#activity += 1;
  }

  /** A host call ended with an answer for the program. */
  leave(): void {
    this.#active -= 1;
    this.#check();
  }

  /** A host call ended as a pending approval: it is held (no answer) until the run pauses. */
  hold(pending: PendingApproval): Promise<HostCallOutcome> {
    this.#pending.push(pending);
    const held = new Promise<HostCallOutcome>((resolve) => this.#held.push(resolve));
    this.leave();
    return held;
  }

  /** The run ended some other way: held calls are answered so nothing waits on them. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#release();
  }

  #check(): void {
    if (this.#paused || this.#active > 0 || this.#pending.length === 0) return;
    clearTimeout(this.#timer);
    const seen = this.#activity;
    this.#timer = setTimeout(() => {
      if (this.#paused || this.#active > 0 || this.#activity !== seen) return;
      this.#paused = true;
      this.#onQuiet();
      this.#release();
    }, this.#settleMs);
  }

  #release(): void {
    const held = this.#held.splice(0);
    for (const resolve of held)
      resolve({ ok: false, code: 'PAUSED', message: 'the run paused: this call awaits approval' });
  }
}

function seqOf(callId: string): number {
  const n = Number(callId.slice(callId.lastIndexOf(':') + 1));
  return Number.isFinite(n) ? n : 0;
}
