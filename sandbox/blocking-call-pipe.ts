// Process mode's path for a call the guest blocks on (guest/blocking-calls.ts): two extra
// pipes between the host and the sandbox process, beside Node's IPC channel. The sandbox
// process writes the call to one and blocks its main thread in read() on the other until
// the host answers: no event-loop wake-up on its side, only the kernel's. The host answers
// with the outcome, or with a release (not answered within BLOCKING_CALL_WAIT_MS, or any
// other message is about to go to that process over IPC); after a release the outcome
// comes over IPC like any other. A frame is one line of JSON. The host reads the process's
// frames as untrusted input and bounds them.
import { readSync, writeSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { CallItem } from './ipc-messages.ts';
import { BLOCKING_CALL_WAIT_MS, MAX_ARGS_BYTES } from './limits.ts';
import type { HostCallOutcome } from './types.ts';

/** The sandbox process's fds: it reads answers from one, writes calls to the other. */
export const ANSWER_FD = 4;
export const CALL_FD = 5;
/** A call frame longer than this (arguments are bounded by MAX_ARGS_BYTES) is a broken process. */
const MAX_CALL_FRAME_CHARS = MAX_ARGS_BYTES + 65_536;
const NEWLINE = 0x0a;

/** Host -> sandbox process, one per blocked call. */
export type BlockingAnswer = { readonly seq: number; readonly outcome: HostCallOutcome } | { readonly release: true };

/** How the calls sandbox processes blocked on fared, host side (for tests and diagnostics). */
export const blockingPipeStats = { answered: 0, released: 0 };

/** Host side of the pipes of one sandbox process. */
export class HostBlockingLink {
  readonly #answers: Writable;
  readonly #calls: Readable;
  #blocked: { runId: number; seq: number; timer: ReturnType<typeof setTimeout> } | undefined;
  #buffered = '';

  /**
   * `onCall` gets every well-formed call frame; `onBroken` a frame that is not one (the
   * process is broken). A blocked call is released after `waitMs`.
   */
  constructor(
    answers: Writable,
    calls: Readable,
    onCall: (call: CallItem) => void,
    onBroken: (why: string) => void,
    waitMs = BLOCKING_CALL_WAIT_MS,
  ) {
    this.#answers = answers;
    this.#calls = calls;
    calls.setEncoding('utf8');
    calls.on('data', (chunk: string) => {
      this.#buffered += chunk;
      let end = this.#buffered.indexOf('\n');
      while (end >= 0) {
        const call = parseCallFrame(this.#buffered.slice(0, end));
        this.#buffered = this.#buffered.slice(end + 1);
        if (call === undefined) {
          onBroken('a malformed blocking call');
          return;
        }
        // The process is blocked until it hears back: the answer, or a release in time.
        clearTimeout(this.#blocked?.timer);
        const timer = setTimeout(() => this.release(), waitMs);
        timer.unref();
        this.#blocked = { runId: call.runId, seq: call.seq, timer };
        onCall(call);
        end = this.#buffered.indexOf('\n');
      }
      if (this.#buffered.length > MAX_CALL_FRAME_CHARS) onBroken('a blocking call over the size limit');
    });
    // The pipes go when the process does; its 'exit' handles the runs.
    calls.on('error', () => undefined);
    answers.on('error', () => undefined);
  }

  /** Answers the blocked call with its outcome; false if `runId`/`seq` is not the call the process is blocked on. */
  answer(runId: number, seq: number, outcome: HostCallOutcome): boolean {
    const blocked = this.#blocked;
    if (blocked === undefined || blocked.runId !== runId || blocked.seq !== seq) return false;
    blockingPipeStats.answered += 1;
    this.#write({ seq, outcome });
    return true;
  }

  /** Lets the blocked process go on (its call's outcome will come over IPC); a no-op when none is blocked. */
  release(): void {
    if (this.#blocked === undefined) return;
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
    clearTimeout(this.#blocked?.timer);
    this.#blocked = undefined;
    try {
      this.#answers.write(`${JSON.stringify(answer)}\n`);
    } catch {
      // the process is going away; its 'exit' fails the runs
    }
  }
}

function parseCallFrame(text: string): CallItem | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  return typeof m['runId'] === 'number' &&
    typeof m['seq'] === 'number' &&
    typeof m['toolName'] === 'string' &&
    typeof m['argsJson'] === 'string'
    ? { runId: m['runId'], seq: m['seq'], toolName: m['toolName'], argsJson: m['argsJson'] }
    : undefined;
}

/**
 * Sandbox process side: sends `call` and blocks this thread until the host answers. The
 * outcome, or undefined when the host released the call (its outcome comes over IPC).
 * Throws when the host is gone (the pipe closed).
 */
export function callAndWait(call: CallItem): HostCallOutcome | undefined {
  const frame = Buffer.from(`${JSON.stringify(call)}\n`, 'utf8');
  for (let written = 0; written < frame.length; ) {
    written += writeSync(CALL_FD, frame, written, frame.length - written);
  }
  const chunks: Buffer[] = [];
  const chunk = Buffer.allocUnsafe(65_536);
  for (;;) {
    const read = readSync(ANSWER_FD, chunk, 0, chunk.length, null);
    if (read <= 0) throw new Error('the host closed the blocking-call pipe');
    // The host writes one frame per blocked call and nothing until the next one.
    const end = chunk.subarray(0, read).indexOf(NEWLINE);
    if (end < 0) {
      chunks.push(Buffer.from(chunk.subarray(0, read)));
      continue;
    }
    chunks.push(chunk.subarray(0, end));
    const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BlockingAnswer;
    return 'release' in answer ? undefined : answer.outcome;
  }
}
