// Process mode's path for a call the guest blocks on (guest/blocking-calls.ts): two extra
// pipes between the host and the sandbox process, beside Node's IPC channel. The sandbox
// process writes the call to one and blocks its main thread in read() on the other until
// the host answers: no event-loop wake-up on its side, only the kernel's. The host answers
// with the outcome, or with a release (not answered within BLOCKING_CALL_WAIT_MS, or any
// other message is about to go to that process over IPC); after a release the outcome
// comes over IPC like any other. Frames: blocking-call-frames.ts. The host reads the
// process's frames as untrusted input and bounds them.
//
// The pipes and the IPC channel are separate streams, so the host keeps them in order
// itself: each call frame says how many IPC messages the process had sent and how many of
// the host's it had handled. A call is handed on only once the host has read the IPC
// messages the process sent before it (a log line stays before the call that follows
// it), and is answered on the pipe only when the process has handled every message the
// host sent it (a cancel already on its way is never overtaken by an answer).
import { writeSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { CallItem } from './ipc-messages.ts';
import {
  type BlockingAnswer,
  type CallFrame,
  CallFrameReader,
  encodeAnswer,
  encodeCallFrame,
  readAnswerSync,
  writeFrameSync,
} from './blocking-call-frames.ts';
import { BLOCKING_CALL_WAIT_MS, CALL_FRAME_BODY_WAIT_MS } from './limits.ts';
import type { HostCallOutcome } from './types.ts';

/** Deadlines a call frame's body may take in all while bytes of it keep coming. */
const MAX_BODY_WAITS = 10;

/** The sandbox process's fds: it reads answers from one, writes calls to the other. */
export const ANSWER_FD = 4;
export const CALL_FD = 5;

/** How the calls sandbox processes blocked on fared, host side (for tests and diagnostics). */
export const blockingPipeStats = { answered: 0, released: 0 };

/** Host side of the pipes of one sandbox process. */
export class HostBlockingLink {
  readonly #answers: Writable;
  readonly #calls: Readable;
  readonly #onCall: (call: CallItem) => void;
  readonly #waitMs: number;
  /** The call the process is blocked on (runId -1: none), and when it is released (performance.now()). */
  #blockedRunId = -1;
  #blockedSeq = -1;
  #releaseAt = 0;
  /** When (performance.now()) bytes last came from the process, a whole call frame did, and an answer or release last went to it. */
  #lastBytesAt: number | undefined;
  #lastFrameAt: number | undefined;
  #lastWriteAt: number | undefined;
  /** One timer bounds every blocked call (see #onReleaseTimer). */
  #releaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** IPC messages sent to the process, and received from it. */
  #sentToProcess = 0;
  #heardFromProcess = 0;
  /** Calls read before IPC messages the process sent ahead of them: handed on once those are in. */
  readonly #held: CallFrame[] = [];
  readonly #reader: CallFrameReader;
  readonly #bodyWaitMs: number;
  /** Armed while a frame's header is in and its body is not: the body's deadline. */
  #bodyTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `onCall` gets every well-formed call, in order with the process's IPC messages;
   * `onBroken` a frame that is not one, or whose body has not fully come `bodyWaitMs`
   * after its header (the process is broken; nothing more is read). A blocked call is
   * released after `waitMs`. The owner reports each IPC message it sends to the process
   * (`willSend`, `sent`) and receives from it (`heard`).
   */
  constructor(
    answers: Writable,
    calls: Readable,
    onCall: (call: CallItem) => void,
    onBroken: (why: string) => void,
    waitMs = BLOCKING_CALL_WAIT_MS,
    bodyWaitMs = CALL_FRAME_BODY_WAIT_MS,
  ) {
    this.#answers = answers;
    this.#calls = calls;
    this.#onCall = onCall;
    this.#waitMs = waitMs;
    this.#bodyWaitMs = bodyWaitMs;
    const reader = new CallFrameReader(
      (frame) => this.#onFrame(frame),
      (why) => {
        clearTimeout(this.#bodyTimer);
        calls.removeListener('data', onData);
        calls.destroy();
        onBroken(why);
      },
    );
    this.#reader = reader;
    const onData = (chunk: Buffer): void => {
      this.#lastBytesAt = performance.now();
      reader.push(chunk);
      this.#watchBody();
    };
    calls.on('data', onData);
    // The pipes go when the process does; its 'exit' handles the runs.
    calls.on('error', () => undefined);
    answers.on('error', () => undefined);
  }

  /**
   * A frame's body must follow its header (the process writes both at once). The deadline
   * starts when a header is in; at the deadline, after the bytes already waiting are read
   * (a host thread that was blocked does not count against the process), a body still
   * incomplete marks the process as broken, unless bytes of it came since the last check
   * (a large body behind a full pipe), for at most 10 deadlines in all (counted, not timed
   * from the header: a host stall longer than 10 waits, with the body still coming, does
   * not count against the process either).
   */
  #watchBody(waits = 1): void {
    const pending = this.#reader.bodyPending;
    if (pending === undefined) {
      clearTimeout(this.#bodyTimer);
      this.#bodyTimer = undefined;
      return;
    }
    if (this.#bodyTimer !== undefined) return;
    const { frame, missing } = pending;
    this.#bodyTimer = setTimeout(() => {
      setImmediate(() => {
        this.#bodyTimer = undefined;
        const now = this.#reader.bodyPending;
        if (now === undefined) return;
        if (now.frame !== frame) this.#watchBody();
        else if (now.missing < missing && waits < MAX_BODY_WAITS) this.#watchBody(waits + 1);
        else
          this.#reader.abandon(
            `a blocking call whose body never came (its header promised ${now.promised} bytes; ` +
              `${now.missing} had not come within the ${this.#bodyWaitMs} ms wait)`,
          );
      });
    }, this.#bodyWaitMs);
    this.#bodyTimer.unref();
  }

  #onFrame(frame: CallFrame): void {
    this.#lastFrameAt = performance.now();
    // The process is blocked until it hears back: the answer, or a release in time.
    this.#blockedRunId = frame.runId;
    this.#blockedSeq = frame.seq;
    this.#releaseAt = performance.now() + this.#waitMs;
    if (this.#releaseTimer === undefined) {
      this.#releaseTimer = setTimeout(this.#onReleaseTimer, this.#waitMs);
      this.#releaseTimer.unref();
    }
    // Messages on their way to the process go first: its outcome follows them over IPC.
    if (frame.handled !== this.#sentToProcess) this.release();
    if (this.#held.length > 0 || frame.sent > this.#heardFromProcess) this.#held.push(frame);
    else this.#handOn(frame);
  }

  // One timer for the link, not one per call: a process making quick calls one after
  // another would otherwise arm and clear a timer each time. When it fires it releases
  // the call blocked now if that call's time is up, else waits for the rest of it; with
  // no call blocked it lapses.
  readonly #onReleaseTimer = (): void => {
    this.#releaseTimer = undefined;
    if (this.#blockedRunId < 0) return;
    const left = this.#releaseAt - performance.now();
    if (left <= 0) {
      this.release();
      return;
    }
    this.#releaseTimer = setTimeout(this.#onReleaseTimer, left);
    this.#releaseTimer.unref();
  };

  #handOn(frame: CallFrame): void {
    const { runId, seq, toolName, argsJson } = frame;
    this.#onCall({ runId, seq, toolName, argsJson });
  }

  /** Whether the process is blocked on a call the host has neither answered nor released. */
  get blocked(): boolean {
    return this.#blockedRunId >= 0;
  }

  /**
   * For the watchdog's message about a silent process: how long ago bytes and a whole call
   * frame last came from it and an answer or release last went to it, and what is still
   * unread (bytes on the call stream, a frame short of its body, calls held for IPC
   * messages not yet heard). Tells a process waiting on a frame the host never read from
   * one whose answer went out.
   */
  describeWait(now = performance.now()): string {
    const ago = (at: number | undefined): string => (at === undefined ? 'never' : `${Math.round(now - at)} ms before`);
    const parts = [
      `bytes last came ${ago(this.#lastBytesAt)}`,
      `a call frame ${ago(this.#lastFrameAt)}`,
      `an answer or release last went ${ago(this.#lastWriteAt)}`,
    ];
    const unread = this.#calls.readableLength;
    if (unread > 0) parts.push(`${unread} bytes unread on the call stream`);
    const pending = this.#reader.bodyPending;
    if (pending !== undefined) parts.push(`a frame ${pending.missing} bytes short of its body`);
    if (this.#held.length > 0) parts.push(`${this.#held.length} calls held for IPC messages not yet heard`);
    return `blocking-call pipe: ${parts.join(', ')}`;
  }

  /** An IPC message from the process was handled: the calls it sent after that message go on. */
  heard(): void {
    this.#heardFromProcess += 1;
    while (this.#held.length > 0 && (this.#held[0] as CallFrame).sent <= this.#heardFromProcess) {
      this.#handOn(this.#held.shift() as CallFrame);
    }
  }

  /** An IPC message is about to go to the process: a process blocked on a call reads nothing else. */
  willSend(): void {
    this.release();
  }

  /** An IPC message went to the process. */
  sent(): void {
    this.#sentToProcess += 1;
  }

  /** Answers the blocked call with its outcome; false if `runId`/`seq` is not the call the process is blocked on. */
  answer(runId: number, seq: number, outcome: HostCallOutcome): boolean {
    if (this.#blockedRunId < 0 || this.#blockedRunId !== runId || this.#blockedSeq !== seq) return false;
    blockingPipeStats.answered += 1;
    this.#write({ seq, outcome });
    return true;
  }

  /** Lets the blocked process go on (its call's outcome will come over IPC); a no-op when none is blocked. */
  release(): void {
    if (this.#blockedRunId < 0) return;
    blockingPipeStats.released += 1;
    this.#write({ release: true });
  }

  /** An idle sandbox process's pipes must not keep the host's event loop alive. */
  ref(on: boolean): void {
    for (const stream of [this.#answers, this.#calls] as unknown as { ref?: () => void; unref?: () => void }[]) {
      if (on) stream.ref?.();
      else stream.unref?.();
    }
  }

  #write(answer: BlockingAnswer): void {
    this.#lastWriteAt = performance.now();
    this.#blockedRunId = -1;
    this.#blockedSeq = -1;
    let frame = encodeAnswer(answer);
    const answers = this.#answers;
    // Straight to the pipe when nothing is queued on the stream (the process reads one
    // answer per call, so nothing usually is): the stream's write path costs a request
    // object and callbacks on the host's thread while the process waits. What the pipe
    // does not take now goes through the stream, after what was written.
    const fd = (answers as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
    if (typeof fd === 'number' && fd >= 0 && answers.writableLength === 0 && !answers.destroyed) {
      try {
        const written = writeSync(fd, frame);
        if (written === frame.length) return;
        frame = frame.subarray(written);
      } catch (error) {
        // Full (EAGAIN): the stream writes it when it can. Anything else: the process is
        // going away; its 'exit' fails the runs.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      }
    }
    try {
      answers.write(frame);
    } catch {
      // the process is going away; its 'exit' fails the runs
    }
  }
}

/**
 * Sandbox process side: sends `call` and blocks this thread until the host answers. The
 * outcome; undefined when the host released the call (its outcome comes over IPC);
 * 'not-sent' when the call cannot go this way (its header would be too long) and must go
 * over IPC. Throws when the host is gone (the pipe closed).
 */
export function callAndWait(call: CallFrame): HostCallOutcome | undefined | 'not-sent' {
  const frame = encodeCallFrame(call);
  if (frame === undefined) return 'not-sent';
  writeFrameSync(CALL_FD, frame);
  const answer = readAnswerSync(ANSWER_FD);
  return 'release' in answer ? undefined : answer.outcome;
}
