// One run in one prepared isolate: configure the prelude, evaluate the program, relay
// its nested calls, and end it on the first of: the program settles, a limit is hit
// (wall clock, CPU, heap, call budget), or the caller terminates it. The isolate is
// disposed at the end, whatever happened. Only async isolated-vm APIs are used once the
// program is loaded, so guest code never runs on this thread and the timers here always
// fire; the host only ever reads strings that guest code produced.
import { placementBlockingCall, placementRunEnded, placementRunStarted } from './blocking-streak-placement.ts';
import { readBlockedCall } from './blocked-call-text.ts';
import { type CompiledProgram, PROGRAM_FILE_NAME } from './compiled-program.ts';
import type { CallDispatcher, DispatchRequest } from './call-bridge.ts';
import type { GuestConfig, GuestDelivery } from './guest-prelude.ts';
import { WAKE_DELIVERY } from './guest-protocol.ts';
import type { IsolateForRun } from './isolate-for-run.ts';
import { budgetCpuNs, processCpuMicros } from './cpu-budget.ts';
import { BLOCKING_CALL_WAIT_MS, MAX_ARGS_BYTES, wallClockMessage } from './limits.ts';
import { LOG_LINE_MIN_BYTES } from './log-buffer.ts';
import { withLocation } from './locate-in-program.ts';
import { failure, type RawRunOutcome } from './run-outcome.ts';
import type {
  FailureKind,
  HostCallOutcome,
  ProgramState,
  RunDeterminism,
  SandboxLimits,
  StateOutcome,
} from './types.ts';

export interface LogSink {
  add(text: string): unknown;
  markTruncated(by: 'bytes' | 'lines'): void;
}

export interface IsolateRunOptions {
  readonly prepared: IsolateForRun;
  readonly program: CompiledProgram;
  readonly toolNames: readonly string[];
  readonly limits: SandboxLimits;
  readonly dispatcher: CallDispatcher;
  readonly logs: LogSink;
  /** The program's seed and clock start (the same on every attempt of one run). */
  readonly determinism: RunDeterminism;
  /** Sessions: the program's `state` global (absent: none). */
  readonly state?: ProgramState | undefined;
  /** How often the isolate's CPU time is read. @default 10 */
  readonly cpuPollMs?: number;
  /** Called once when the run has used more than `heavyCpuMs` of CPU (it is CPU-bound; see cpu-lanes.ts). */
  readonly onCpuHeavy?: () => void;
  readonly heavyCpuMs?: number;
  /** After the program settles, how long to wait for a last unhandled rejection report. @default 50 */
  readonly settleReportMs?: number;
  /** Where this run counts its blocked calls. @default blockingCallStats */
  readonly blockingStats?: { answered: number; released: number };
  /** Hold this thread and the isolate's on one CPU while the run blocks on call after call (blocking-streak-placement.ts). @default false */
  readonly placeBlockingStreaks?: boolean;
}

export interface IsolateRun {
  /** Resolves once the run is over (its isolate disposed at once on failure, right after on success); never rejects. */
  readonly outcome: Promise<RawRunOutcome>;
  /** Ends the run now with this failure (no-op once it has ended). */
  terminate(kind: FailureKind, message: string): void;
}

const MAX_REPORT_CHARS = 2_000;
/** Outcome text gathered for one crossing into the isolate before it crosses anyway. */
const MAX_BATCH_CHARS = 1_048_576;
const DONE_KINDS: ReadonlySet<string> = new Set(['exception', 'memory', 'output-limit', 'invalid-output']);
/** The isolate runs in this process, so its Node line is this one's. */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** How the calls guests blocked on fared in this process (for tests and diagnostics). */
export const blockingCallStats = { answered: 0, released: 0 };

export function startIsolateRun(options: IsolateRunOptions): IsolateRun {
  const run = new Run(options);
  run.start();
  return { outcome: run.outcome, terminate: (kind, message) => run.end(failure(kind, message)) };
}

class Run {
  readonly outcome: Promise<RawRunOutcome>;
  readonly #options: IsolateRunOptions;
  readonly #toolNames: ReadonlySet<string>;
  readonly #ops = new Set<Promise<unknown>>();
  /** Outcomes settled in the same tick, handed to the guest in one crossing. */
  #outbox: GuestDelivery[] = [];
  /** Calls dispatched to the host whose outcome has not been delivered yet. */
  #pending = 0;
  #flushScheduled = false;
  #outboxChars = 0;
  #resolve!: (outcome: RawRunOutcome) => void;
  #ended = false;
  #programSettled = false;
  #lastSeq = 0;
  #cpuStart = 0n;
  /** This process's CPU time (µs) when the run started: an upper bound of the isolate's (cpu-budget.ts). */
  #processCpuStart = 0;
  #heavy = false;
  /** Ends the wait of the call the guest is blocked on (set while one is). */
  #releaseBlocked: (() => void) | undefined;
  /** Isolated-vm is inside a blocking call of this run, or waits for its reply to settle. */
  #inBlockingCall = false;
  /** The isolate's disposal, held until that reply has settled. */
  #disposeAfterBlocking: (() => void) | undefined;
  /** When that call is released (performance.now()), and the timer that does it. */
  #releaseAt = 0;
  #releaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** Calls into the isolate started so far, CPU used at the last poll, and CPU used since a call into the isolate last started. */
  #opsStarted = 0;
  #opsAtPoll = 0;
  #cpuAtPoll = 0n;
  #stretchCpu = 0n;
  #wallTimer: ReturnType<typeof setTimeout> | undefined;
  #cpuTimer: ReturnType<typeof setInterval> | undefined;
  /** The guest's one timer wake-up (guest/timers.ts), cleared when the run ends. */
  #wakeTimer: ReturnType<typeof setTimeout> | undefined;
  #wakeImmediate: ReturnType<typeof setImmediate> | undefined;

  constructor(options: IsolateRunOptions) {
    this.#options = options;
    this.#toolNames = new Set(options.toolNames);
    this.outcome = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  start(): void {
    const { prepared, limits } = this.#options;
    placementRunStarted();
    prepared.bind({
      onMessage: (text) => this.#onMessage(text),
      onBlockingCall: (text) => this.#onBlockingCall(text),
      onBlockingReplySettled: () => this.#blockingCallOver(),
      onCatastrophic: (message) =>
        this.end(
          failure(
            /out.of.memory/i.test(message) ? 'memory' : 'crash',
            `isolated-vm gave up on the isolate: ${message}`,
          ),
        ),
    });
    if (prepared.catastrophic !== undefined || prepared.disposed) {
      this.end(failure('crash', 'the sandbox isolate was not usable'));
      return;
    }
    this.#wallTimer = setTimeout(
      () => this.end(failure('timeout', wallClockMessage(limits.wallTimeMs))),
      limits.wallTimeMs,
    );
    try {
      this.#cpuStart = prepared.isolate.cpuTime;
    } catch {
      this.#cpuStart = 0n;
    }
    this.#processCpuStart = processCpuMicros();
    void this.#load();
  }

  async #load(): Promise<void> {
    const { prepared, program, limits, toolNames, determinism, state } = this.#options;
    const config: GuestConfig = {
      tools: toolNames,
      maxCalls: limits.maxCalls,
      maxConcurrentCalls: limits.maxConcurrentCalls,
      maxLogBytes: limits.maxLogBytes,
      maxLogLines: limits.maxLogLines,
      logLineMinBytes: LOG_LINE_MIN_BYTES,
      maxResultBytes: limits.maxResultBytes,
      maxArgsBytes: MAX_ARGS_BYTES,
      offHeapBytes: limits.memoryMb * 1_048_576,
      seed: determinism.seed,
      clockStartMs: determinism.clockStartMs,
      nodeMajor: NODE_MAJOR,
      // A program can name URL only in its text, or reach it by a computed name (rare):
      // the built-ins the URL library reads are captured before the first kind runs.
      urlBeforeProgram: program.js.includes('URL'),
      ...(state === undefined ? {} : { state }),
    };
    const configured = this.#op(
      prepared.configure.apply(undefined, [JSON.stringify(config)], { arguments: { copy: true } }),
    );
    // Queued right behind configure: the isolate's thread takes both in one turn, one
    // hand-off fewer per run. The program runs only once both are done.
    const compiled = prepared.isolate.compileScript(program.js, { filename: PROGRAM_FILE_NAME }).then(
      (script) => ({ script }),
      (error: unknown) => ({ error }),
    );
    if (!(await configured)) {
      void compiled.then((done) => ('script' in done ? done.script.release() : undefined));
      return;
    }
    const done = await compiled;
    if (!('script' in done)) {
      if (!this.#ended && !prepared.disposed) {
        this.end(failure('compile', `The program could not be compiled: ${describeHostSide(done.error)}`));
      } else {
        this.#onOpError(done.error);
      }
      return;
    }
    const { script } = done;
    if (this.#ended) return;
    // The script's completion value is always undefined (see compile-program.ts).
    await this.#op(script.run(prepared.context, { release: true }));
  }

  /** Tracks a call into the isolate; its failure is a memory kill or an unhandled rejection. */
  async #op(promise: Promise<unknown>): Promise<boolean> {
    const tracked = promise.then(
      () => true,
      (error: unknown) => {
        this.#onOpError(error);
        return false;
      },
    );
    this.#ops.add(tracked);
    this.#opsStarted += 1;
    // Guest code runs only inside a call into the isolate: its CPU is polled only then (a
    // run awaiting tools costs no polling, however many of them are in flight).
    if (this.#cpuTimer === undefined && !this.#ended) {
      this.#cpuTimer = setInterval(() => this.#checkCpu(), this.#options.cpuPollMs ?? 10);
    }
    try {
      return await tracked;
    } finally {
      this.#ops.delete(tracked);
      if (this.#ops.size === 0 && this.#cpuTimer !== undefined) {
        clearInterval(this.#cpuTimer);
        this.#cpuTimer = undefined;
        if (!this.#ended) this.#checkCpu();
      }
    }
  }

  #onOpError(error: unknown): void {
    if (this.#ended) return;
    const { prepared, limits } = this.#options;
    const text = describeHostSide(error);
    if (prepared.disposed || /memory limit/i.test(text)) {
      this.end(failure('memory', `The program ran out of memory (heap limit ${limits.memoryMb} MiB).`));
      return;
    }
    // isolated-vm reports a rejection nobody handled as the failure of the task in which
    // it happened (the copy was made on the isolate's thread, bounded by the watchdog).
    this.#options.logs.add(`[unhandled rejection] ${text}`);
  }

  #checkCpu(): void {
    const { prepared, limits } = this.#options;
    let used: bigint;
    try {
      used = prepared.isolate.cpuTime - this.#cpuStart;
    } catch {
      return;
    }
    // The charge is the smaller of two readings: the process's CPU (a system call, ~1 ms
    // per run in a burst when read at every poll) matters only once the isolate's is over.
    const budgetNs = BigInt(limits.cpuTimeMs) * 1_000_000n;
    if (used > budgetNs && budgetCpuNs(used, processCpuMicros() - this.#processCpuStart) > budgetNs) {
      this.end(failure('cpu', `The program used more than its CPU budget of ${limits.cpuTimeMs} ms.`));
      return;
    }
    const { onCpuHeavy, heavyCpuMs } = this.#options;
    if (this.#heavy || onCpuHeavy === undefined) return;
    // CPU-bound: one stretch of guest code (no new call into the isolate since the last
    // poll) kept using CPU. A program making many quick calls starts new stretches all the time.
    const delta = used - this.#cpuAtPoll;
    this.#cpuAtPoll = used;
    this.#stretchCpu = this.#ops.size > 0 && this.#opsStarted === this.#opsAtPoll ? this.#stretchCpu + delta : 0n;
    this.#opsAtPoll = this.#opsStarted;
    if (this.#stretchCpu > BigInt(heavyCpuMs ?? 50) * 1_000_000n) {
      this.#heavy = true;
      onCpuHeavy();
    }
  }

  #onMessage(text: string): void {
    if (this.#ended) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.#protocolError('unreadable message');
      return;
    }
    if (typeof message !== 'object' || message === null) {
      this.#protocolError('message is not an object');
      return;
    }
    const m = message as Record<string, unknown>;
    switch (m['t']) {
      case 'log':
        if (typeof m['text'] === 'string') this.#options.logs.add(m['text']);
        return;
      case 'wake':
        this.#scheduleWake(m['ms']);
        return;
      case 'cancel-call':
        if (typeof m['seq'] === 'number' && m['seq'] >= 1 && m['seq'] <= this.#lastSeq) {
          this.#options.dispatcher.cancel(m['seq']);
        }
        return;
      case 'logs-truncated':
        this.#options.logs.markTruncated(m['by'] === 'lines' ? 'lines' : 'bytes');
        return;
      case 'call':
        this.#onCall(m);
        return;
      case 'calls': {
        const calls = m['calls'];
        if (!Array.isArray(calls)) {
          this.#protocolError('bad calls message');
          return;
        }
        for (const call of calls as unknown[]) {
          if (this.#ended) return;
          if (typeof call !== 'object' || call === null) {
            this.#protocolError('bad calls message');
            return;
          }
          this.#onCall(call as Record<string, unknown>);
        }
        return;
      }
      case 'limit':
        if (
          (m['kind'] === 'call-limit' || m['kind'] === 'memory' || m['kind'] === 'exception') &&
          typeof m['message'] === 'string'
        ) {
          this.end(failure(m['kind'], clip(m['message'])));
        } else {
          this.#protocolError('bad limit message');
        }
        return;
      case 'done':
        this.#onDone(m);
        return;
      default:
        this.#protocolError('unknown message');
    }
  }

  // The guest's earliest timer is due in `ms`: wake it then, from this event loop (an
  // overdue timer at the next turn), so its timers are tasks like any other.
  #scheduleWake(ms: unknown): void {
    this.#clearWake();
    if (typeof ms !== 'number' || !(ms >= 0) || this.#programSettled) return;
    const fire = (): void => {
      this.#wakeTimer = undefined;
      this.#wakeImmediate = undefined;
      if (this.#ended || this.#programSettled) return;
      void this.#op(this.#options.prepared.deliver.apply(undefined, [WAKE_DELIVERY], { arguments: { copy: true } }));
    };
    if (ms < 1) this.#wakeImmediate = setImmediate(fire);
    else this.#wakeTimer = setTimeout(fire, Math.min(ms, 2 ** 31 - 1));
  }

  #clearWake(): void {
    clearTimeout(this.#wakeTimer);
    clearImmediate(this.#wakeImmediate);
    this.#wakeTimer = undefined;
    this.#wakeImmediate = undefined;
  }

  #onCall(m: Record<string, unknown>): void {
    const call = this.#accept(m);
    if (call === undefined) return;
    void this.#options.dispatcher.call(call).then((outcome) => this.#deliver(call.seq, outcome));
  }

  /**
   * A call the guest blocks on (guest/blocking-calls.ts): checked and dispatched as any
   * call; its outcome is the answer (the delivery's JSON) if it comes within
   * BLOCKING_CALL_WAIT_MS, else '' and the outcome is delivered the asynchronous way.
   */
  #onBlockingCall(text: string): string | Promise<string> {
    this.#inBlockingCall = true;
    if (this.#options.placeBlockingStreaks === true) placementBlockingCall(this);
    let reply: string | Promise<string> = '';
    try {
      reply = this.#blockingCall(text);
    } finally {
      // A promise: the pool tells onBlockingReplySettled once isolated-vm has it.
      if (typeof reply === 'string') this.#blockingCallOver();
    }
    return reply;
  }

  /** The reply isolated-vm waits for has settled (or was a string): the isolate may be disposed now. */
  #blockingCallOver(): void {
    this.#inBlockingCall = false;
    const dispose = this.#disposeAfterBlocking;
    this.#disposeAfterBlocking = undefined;
    // After this turn's microtasks, in which isolated-vm takes the reply.
    if (dispose !== undefined) setImmediate(dispose);
  }

  #blockingCall(text: string): string | Promise<string> {
    if (this.#ended || this.#programSettled) return '';
    const m = readBlockedCall(text);
    if (m === undefined) {
      this.#protocolError('bad call frame');
      return '';
    }
    const call = this.#accept(m);
    if (call === undefined) return '';
    // The guest's stretch of code ends here, as it does when it awaits an async call.
    this.#opsStarted += 1;
    const { dispatcher } = this.#options;
    const answered = dispatcher.callBlocking?.(call);
    if (answered !== undefined && !(answered instanceof Promise)) return this.#answerBlocked(call.seq, answered);
    const dispatched = answered ?? dispatcher.call(call);
    const seq = call.seq;
    // Released by the host already, or the run ended meanwhile: the asynchronous way.
    if (answered !== undefined || this.#ended) {
      this.#countReleased();
      void dispatched.then((outcome) => this.#deliver(seq, outcome));
      return '';
    }
    // The outcome is the reply if it comes within BLOCKING_CALL_WAIT_MS and the run goes
    // on; else the call is released ('') and its outcome crosses later, as any call's does.
    // One promise and one reaction on the outcome serve both ends.
    return new Promise<string>((resolve) => {
      let waiting = true;
      this.#releaseBlocked = () => {
        if (!waiting) return;
        waiting = false;
        this.#releaseBlocked = undefined;
        this.#countReleased();
        resolve('');
      };
      this.#releaseAt = performance.now() + BLOCKING_CALL_WAIT_MS;
      this.#releaseTimer ??= setTimeout(this.#onReleaseTimer, BLOCKING_CALL_WAIT_MS);
      void dispatched.then((outcome) => {
        if (!waiting) {
          this.#deliver(seq, outcome);
          return;
        }
        waiting = false;
        this.#releaseBlocked = undefined;
        let reply = '';
        try {
          reply = this.#answerBlocked(seq, outcome);
        } finally {
          resolve(reply);
        }
      });
    });
  }

  #countReleased(): void {
    (this.#options.blockingStats ?? blockingCallStats).released += 1;
  }

  #answerBlocked(seq: number, outcome: HostCallOutcome): string {
    (this.#options.blockingStats ?? blockingCallStats).answered += 1;
    this.#pending -= 1;
    if (this.#ended || this.#programSettled) return '';
    // A value as its JSON behind a short header (guest/tool-calls.ts settleBlocked): not
    // escaped into a delivery's JSON here and parsed out of it in the guest.
    if (outcome.ok) return `v${seq} ${outcome.at ?? Date.now()} ${outcome.valueJson}`;
    return JSON.stringify(toDelivery(seq, outcome));
  }

  // One timer per run bounds every blocked call: a program making quick calls one after
  // another would otherwise arm and clear a timer per call. When it fires it releases the
  // call blocked now if that call's time is up, else waits for the rest of it; with no
  // call blocked it lapses (a call answered a moment ago may still be set: releasing it
  // is a no-op).
  readonly #onReleaseTimer = (): void => {
    this.#releaseTimer = undefined;
    if (this.#releaseBlocked === undefined) return;
    const left = this.#releaseAt - performance.now();
    if (left <= 0) this.#releaseBlocked();
    else this.#releaseTimer = setTimeout(this.#onReleaseTimer, left);
  };

  /** Checks a call message: the request to dispatch (counted as pending), or undefined (the run may have ended). */
  #accept(m: {
    readonly seq?: unknown;
    readonly tool?: unknown;
    readonly args?: unknown;
  }): DispatchRequest | undefined {
    const { seq, tool, args } = m;
    if (this.#programSettled) return undefined; // the guest refuses these itself; never dispatch
    if (typeof seq !== 'number' || typeof tool !== 'string' || typeof args !== 'string') {
      this.#protocolError('bad call message');
      return undefined;
    }
    if (seq !== this.#lastSeq + 1 || !this.#toolNames.has(tool)) {
      this.#protocolError(`call #${seq} to "${clip(tool)}" out of order or unbound`);
      return undefined;
    }
    this.#lastSeq = seq;
    const { limits } = this.#options;
    if (seq > limits.maxCalls) {
      this.end(
        failure('call-limit', `The program made more than ${limits.maxCalls} tool calls (the limit of one run).`),
      );
      return undefined;
    }
    if (args.length > MAX_ARGS_BYTES) {
      this.#protocolError('call arguments over the size limit');
      return undefined;
    }
    this.#pending += 1;
    return { seq, toolName: tool, argsJson: args };
  }

  #deliver(seq: number, outcome: HostCallOutcome): void {
    if (this.#ended || this.#programSettled) return;
    this.#outbox.push(toDelivery(seq, outcome));
    this.#outboxChars += outcome.ok ? outcome.valueJson.length : outcome.message.length;
    this.#pending -= 1;
    // A full batch crosses now (one crossing's text stays bounded).
    if (this.#outboxChars > MAX_BATCH_CHARS) {
      this.#flush();
      return;
    }
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // The last outstanding call crosses at once (a sequential program waits on it); while
    // others are still out, outcomes gather until the event loop has handled everything
    // that arrived, and cross together: one crossing per loop turn, not one per call.
    if (this.#pending === 0) queueMicrotask(() => this.#flush());
    else setImmediate(() => this.#flush());
  }

  // Many calls of a Promise.all settle together: one crossing into the isolate for all.
  #flush(): void {
    this.#flushScheduled = false;
    const batch = this.#outbox;
    this.#outbox = [];
    this.#outboxChars = 0;
    if (this.#ended || this.#programSettled || batch.length === 0) return;
    const text = JSON.stringify(batch.length === 1 ? batch[0] : batch);
    void this.#op(this.#options.prepared.deliver.apply(undefined, [text], { arguments: { copy: true } }));
  }

  #onDone(m: Record<string, unknown>): void {
    if (this.#programSettled) return;
    let outcome: RawRunOutcome;
    if (m['ok'] === true && (m['result'] === undefined || typeof m['result'] === 'string')) {
      const state = reportedState(m);
      outcome = {
        ok: true,
        ...(m['result'] === undefined ? {} : { resultJson: m['result'] }),
        ...(state === undefined ? {} : { state }),
      };
    } else if (
      m['ok'] === false &&
      typeof m['kind'] === 'string' &&
      DONE_KINDS.has(m['kind']) &&
      typeof m['message'] === 'string'
    ) {
      const stack = typeof m['stack'] === 'string' ? m['stack'] : undefined;
      const located =
        m['kind'] === 'exception'
          ? withLocation({ ok: false, kind: 'exception', message: clip(m['message']) }, this.#options.program, stack)
          : undefined;
      outcome =
        located !== undefined
          ? located
          : m['kind'] === 'exception' && stack !== undefined && this.#options.program.sourceMap === ''
            ? { ok: false, kind: 'exception', message: clip(m['message']), stack: clip(stack) }
            : failure(m['kind'] as FailureKind, clip(m['message']));
    } else {
      this.#protocolError('bad done message');
      return;
    }
    this.#programSettled = true;
    this.#clearWake();
    // The program is over: in-flight host calls are aborted now (the caller waits for
    // them), and a rejection the program left unhandled in its last task gets a moment
    // to surface as a log line before the isolate goes.
    this.#options.dispatcher.close();
    void this.#afterPendingOps().then(() => this.end(outcome));
  }

  async #afterPendingOps(): Promise<void> {
    if (this.#ops.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...this.#ops]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#options.settleReportMs ?? 50);
      }),
    ]);
    clearTimeout(timer);
  }

  #protocolError(detail: string): void {
    this.end(failure('exception', `sandbox protocol error (${detail}): the program tampered with the sandbox runtime`));
  }

  end(outcome: RawRunOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    placementRunEnded(this);
    clearTimeout(this.#wallTimer);
    clearTimeout(this.#releaseTimer);
    clearInterval(this.#cpuTimer);
    this.#clearWake();
    this.#options.dispatcher.close();
    // A call the isolate is blocked on stops waiting for its outcome (dropped: the run is
    // over).
    this.#releaseBlocked?.();
    if (this.#inBlockingCall) {
      // isolated-vm waits for the reply to that call: disposing the isolate before the
      // reply has settled crashed or hung this process now and then (isolated-vm 7.0.1,
      // end-while-blocked.test.ts). The reply settles in this turn's microtasks; the
      // isolate goes right after. Disposing a blocked isolate whose call has not reached
      // this thread yet is safe: its reply will be a string, handed over at once.
      this.#resolve(outcome);
      this.#disposeAfterBlocking = () => this.#options.prepared.dispose();
      return;
    }
    if (outcome.ok) {
      // The program has finished: hand the result on first and dispose right after,
      // off the result's critical path. Nothing can cross any more (dispatcher closed).
      this.#resolve(outcome);
      setImmediate(() => this.#options.prepared.dispose());
    } else {
      // A limit or failure: stop the isolate now.
      this.#options.prepared.dispose();
      this.#resolve(outcome);
    }
  }
}

function toDelivery(seq: number, outcome: HostCallOutcome): GuestDelivery {
  const at = outcome.at ?? Date.now();
  return outcome.ok
    ? { seq, ok: true, value: outcome.valueJson, at }
    : { seq, ok: false, code: outcome.code, message: outcome.message, at };
}

/** Text of an error isolated-vm produced on the host side (a copy, never a guest object). */
function describeHostSide(error: unknown): string {
  try {
    if (error instanceof Error) return clip(error.name ? `${error.name}: ${error.message}` : error.message);
    return clip(String(error));
  } catch {
    return 'an unreadable error';
  }
}

function clip(text: string): string {
  return text.length > MAX_REPORT_CHARS ? `${text.slice(0, MAX_REPORT_CHARS)}...` : text;
}

/** The state a `done` message carries (the host re-checks its size: run-outcome.ts). */
function reportedState(m: Record<string, unknown>): StateOutcome | undefined {
  if (typeof m['state'] === 'string' && typeof m['stateBytes'] === 'number')
    return { ok: true, text: m['state'], bytes: m['stateBytes'] };
  if (typeof m['stateError'] === 'string') return { ok: false, message: clip(m['stateError']) };
  return undefined;
}
