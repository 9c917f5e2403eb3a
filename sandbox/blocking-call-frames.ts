// The wire format of the blocking-call pipes (blocking-call-pipe.ts). A frame is one
// line of JSON (the header) followed by a body of raw UTF-8 whose byte length the header
// gives. The body is text that is already JSON or plain text — a call's arguments, an
// outcome's value or message — and crosses as it is: never escaped a second time, so a
// frame is the body's bytes plus a short header, and any call the argument limit accepts
// fits the bound the host reads calls with. The one exception: an error message that is
// not well-formed UTF-16 (a lone surrogate) crosses JSON-escaped, marked in its header.
import { readSync, writeSync } from 'node:fs';
import type { CallItem } from './ipc-messages.ts';
import { MAX_ARGS_BYTES } from './limits.ts';
import type { HostCallOutcome } from './types.ts';

/** A call the sandbox process blocks on, and where it stood with its IPC channel when it made it. */
export interface CallFrame extends CallItem {
  /** IPC messages the sandbox process had sent to the host before this call. */
  readonly sent: number;
  /** IPC messages from the host the sandbox process had handled before this call. */
  readonly handled: number;
}

/** Host -> sandbox process, one per call frame: the outcome, or a release (the outcome comes over IPC). */
export type BlockingAnswer = { readonly seq: number; readonly outcome: HostCallOutcome } | { readonly release: true };

/** A header line longer than this is not one (a call whose header would be goes over IPC instead). */
export const MAX_HEADER_BYTES = 4_096;
/** Arguments are at most MAX_ARGS_BYTES UTF-16 code units; each is at most 3 bytes of UTF-8. */
export const MAX_CALL_BODY_BYTES = 3 * MAX_ARGS_BYTES;
const NEWLINE = 0x0a;
/** With the u flag a surrogate pair is one code point, so this matches only an unpaired half. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/**
 * A frame's header line, written by hand (numbers and JSON strings only): no object to
 * spread or stringify per call. `fields` is the header's members before `bytes`, each
 * followed by a comma. The frame is this line and the body in one buffer: one
 * allocation, one write.
 */
function headerLine(fields: string, body: string): string {
  return `{${fields}"bytes":${Buffer.byteLength(body, 'utf8')}}\n`;
}

/** Undefined when its header would be over MAX_HEADER_BYTES (a very long tool name): such a call goes over IPC. */
export function encodeCallFrame(frame: CallFrame): Buffer | undefined {
  const { runId, seq, toolName, sent, handled, argsJson } = frame;
  const header = headerLine(
    `"runId":${runId},"seq":${seq},"toolName":${JSON.stringify(toolName)},"sent":${sent},"handled":${handled},`,
    argsJson,
  );
  // Only the tool name makes a header long; a UTF-16 unit is at most 3 bytes.
  if (header.length * 3 >= MAX_HEADER_BYTES && Buffer.byteLength(header, 'utf8') >= MAX_HEADER_BYTES) return undefined;
  return Buffer.from(header + argsJson, 'utf8');
}

const RELEASE_FRAME = '{"release":true,"bytes":0}\n';

/** The host's own text: the sandbox process reads its header unbounded. */
export function encodeAnswer(answer: BlockingAnswer): Buffer {
  if ('release' in answer) return Buffer.from(RELEASE_FRAME, 'utf8');
  const { outcome } = answer;
  // A time that is not a finite number is left out (the sandbox process then takes its own).
  const at = outcome.at !== undefined && Number.isFinite(outcome.at) ? `"at":${outcome.at},` : '';
  let fields: string;
  let body: string;
  if (outcome.ok) {
    fields = `"seq":${answer.seq},"ok":true,${at}`;
    body = outcome.valueJson;
  } else {
    fields = `"seq":${answer.seq},"ok":false,"code":${JSON.stringify(outcome.code)},${at}`;
    body = outcome.message;
    // Raw UTF-8 cannot carry a lone surrogate (a message clipped mid-emoji): such a
    // message crosses JSON-escaped, so it reads the same as over IPC.
    if (LONE_SURROGATE.test(body)) {
      fields += '"escaped":true,';
      body = JSON.stringify(body);
    }
  }
  return Buffer.from(headerLine(fields, body) + body, 'utf8');
}

/**
 * Host side: reads call frames out of the chunks the pipe delivers, in time linear in
 * their size. Anything that is not a well-formed frame within the bounds is reported
 * once, and nothing is read after it.
 */
export class CallFrameReader {
  readonly #onFrame: (frame: CallFrame) => void;
  readonly #onBroken: (why: string) => void;
  #head: Buffer[] = [];
  #headBytes = 0;
  /** The header of the frame whose body is being read. */
  #header: Omit<CallFrame, 'argsJson'> | undefined;
  #body: Buffer[] = [];
  #bodyNeeded = 0;
  /** Headers read so far (which frame `bodyPending` is about). */
  #headers = 0;
  #broken = false;

  constructor(onFrame: (frame: CallFrame) => void, onBroken: (why: string) => void) {
    this.#onFrame = onFrame;
    this.#onBroken = onBroken;
  }

  get broken(): boolean {
    return this.#broken;
  }

  /** The frame whose header was read and whose body has not fully come: bytes promised and still missing. */
  get bodyPending(): { readonly frame: number; readonly promised: number; readonly missing: number } | undefined {
    const header = this.#header as (Omit<CallFrame, 'argsJson'> & { bytes?: number }) | undefined;
    if (header === undefined || this.#broken) return undefined;
    return { frame: this.#headers, promised: header.bytes ?? 0, missing: this.#bodyNeeded };
  }

  /** Stops reading: the stream is treated as broken for `why` (reported once, like a malformed frame). */
  abandon(why: string): void {
    if (!this.#broken) this.#fail(why);
  }

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.#broken) {
      if (this.#header === undefined) {
        const newline = chunk.indexOf(NEWLINE, at);
        const end = newline < 0 ? chunk.length : newline;
        this.#headBytes += end - at;
        if (this.#headBytes >= MAX_HEADER_BYTES) {
          this.#fail('a blocking call over the size limit');
          return;
        }
        if (newline < 0) {
          this.#head.push(chunk.subarray(at, end));
          return;
        }
        // Usually the whole header is in this chunk: decoded in place, no copy.
        let text: string;
        if (this.#head.length === 0) text = chunk.toString('utf8', at, end);
        else {
          this.#head.push(chunk.subarray(at, end));
          text = Buffer.concat(this.#head).toString('utf8');
          this.#head = [];
        }
        at = newline + 1;
        const header = parseCallHeader(text);
        this.#headBytes = 0;
        if (header === undefined) {
          this.#fail('a malformed blocking call');
          return;
        }
        if (header.bytes > MAX_CALL_BODY_BYTES) {
          this.#fail('a blocking call over the size limit');
          return;
        }
        this.#header = header;
        this.#headers += 1;
        this.#bodyNeeded = header.bytes;
      }
      const take = Math.min(this.#bodyNeeded, chunk.length - at);
      // Usually the whole body is in this chunk too: decoded in place.
      let whole: string | undefined;
      if (take > 0) {
        if (this.#body.length === 0 && take === this.#bodyNeeded) whole = chunk.toString('utf8', at, at + take);
        else this.#body.push(chunk.subarray(at, at + take));
        at += take;
        this.#bodyNeeded -= take;
      }
      if (this.#bodyNeeded === 0) {
        const { runId, seq, toolName, sent, handled } = this.#header;
        const argsJson = whole ?? Buffer.concat(this.#body).toString('utf8');
        this.#header = undefined;
        this.#body = [];
        this.#onFrame({ runId, seq, toolName, argsJson, sent, handled });
      }
    }
  }

  #fail(why: string): void {
    this.#broken = true;
    this.#head = [];
    this.#body = [];
    this.#onBroken(why);
  }
}

function parseCallHeader(text: string): (Omit<CallFrame, 'argsJson'> & { bytes: number }) | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  const { runId, seq, toolName, sent, handled, bytes } = m;
  const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  return count(runId) && count(seq) && typeof toolName === 'string' && count(sent) && count(handled) && count(bytes)
    ? { runId, seq, toolName, sent, handled, bytes }
    : undefined;
}

/** Sandbox process side: writes a frame to `fd` in one write, blocking until it is written. */
export function writeFrameSync(fd: number, frame: Buffer): void {
  // One write for the whole frame: the host wakes once for it, not once per part.
  for (let written = 0; written < frame.length; ) written += writeSync(fd, frame, written, frame.length - written);
}

/**
 * Where readAnswerSync reads, shared by every call (this thread waits for one answer at a
 * time, and nothing read into it is kept past the call): a fresh 64 KiB buffer per call
 * cost ~7 µs of allocation and its external memory kept the collector busy.
 */
const answerChunk = Buffer.allocUnsafe(65_536);

/**
 * Sandbox process side: blocks this thread until one answer frame has been read from
 * `fd` (the host writes one per call frame and nothing until the next). Throws when the
 * pipe closed (the host is gone) or the frame is not one.
 */
export function readAnswerSync(fd: number): BlockingAnswer {
  const chunk = answerChunk;
  const head: Buffer[] = [];
  let headerText: string;
  let rest: Buffer;
  for (;;) {
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read <= 0) throw new Error('the host closed the blocking-call pipe');
    const newline = chunk.subarray(0, read).indexOf(NEWLINE);
    if (newline < 0) {
      head.push(Buffer.from(chunk.subarray(0, read)));
      continue;
    }
    // Usually the whole header is in the first read: decoded in place, no copy.
    headerText = head.length === 0 ? chunk.toString('utf8', 0, newline) : joinText(head, chunk.subarray(0, newline));
    rest = chunk.subarray(newline + 1, read);
    break;
  }
  const header = JSON.parse(headerText) as Record<string, unknown>;
  const bytes = header['bytes'];
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < rest.length) {
    throw new Error('a malformed answer on the blocking-call pipe');
  }
  if (header['release'] === true) return { release: true };
  let text: string;
  // Usually the whole body came with the header: decoded in place.
  if (rest.length === bytes) text = rest.toString('utf8');
  else {
    const body = Buffer.allocUnsafe(bytes);
    let filled = rest.copy(body);
    while (filled < bytes) {
      const read = readSync(fd, body, filled, bytes - filled, null);
      if (read <= 0) throw new Error('the host closed the blocking-call pipe');
      filled += read;
    }
    text = body.toString('utf8');
  }
  const message = header['escaped'] === true ? String(JSON.parse(text)) : text;
  const seq = header['seq'] as number;
  const at = typeof header['at'] === 'number' ? { at: header['at'] } : {};
  return header['ok'] === true
    ? { seq, outcome: { ok: true, valueJson: text, ...at } }
    : { seq, outcome: { ok: false, code: String(header['code']), message, ...at } };
}

function joinText(parts: Buffer[], last: Buffer): string {
  parts.push(last);
  return Buffer.concat(parts).toString('utf8');
}
