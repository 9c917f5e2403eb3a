// The host end of process mode's blocking-call pipes: every call frame from the sandbox
// process gets exactly one answer (its outcome, or a release when the outcome is late or
// another message must go first); calls are handed on in order with the process's IPC
// messages; frames that are not calls, or larger than any call may be, mark the process
// as broken and nothing more is read. The sandbox-process end is exercised end to end by
// blocking-calls.test.ts, blocking-call-limits.test.ts and blocking-call-ordering.test.ts.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { HostBlockingLink } from '../../sandbox/blocking-call-pipe.ts';
import {
  type BlockingAnswer,
  type CallFrame,
  encodeAnswer,
  encodeCallFrame,
  MAX_CALL_BODY_BYTES,
  MAX_HEADER_BYTES,
  readAnswerSync,
} from '../../sandbox/blocking-call-frames.ts';
import { BLOCKING_CALL_WAIT_MS, CALL_FRAME_BODY_WAIT_MS } from '../../sandbox/limits.ts';
import type { CallItem } from '../../sandbox/ipc-messages.ts';
import { sleep } from './helpers.ts';

/** Splits the bytes the host wrote into answers (header line, then `bytes` of body). */
function decodeAnswers(bytes: Buffer): unknown[] {
  const answers: unknown[] = [];
  let at = 0;
  while (at < bytes.length) {
    const newline = bytes.indexOf(0x0a, at);
    const header = JSON.parse(bytes.subarray(at, newline).toString('utf8')) as Record<string, unknown>;
    const length = header['bytes'] as number;
    const body = bytes.subarray(newline + 1, newline + 1 + length).toString('utf8');
    at = newline + 1 + length;
    if (header['release'] === true) answers.push({ release: true });
    else if (header['ok'] === true) answers.push({ seq: header['seq'], outcome: { ok: true, valueJson: body } });
    else answers.push({ seq: header['seq'], outcome: { ok: false, code: header['code'], message: body } });
  }
  return answers;
}

/**
 * The host end over two in-memory streams. Its release wait is long unless a test is
 * about it (`waitMs`): on a loaded machine a 2 ms timer can fire between a frame and the
 * test's answer.
 */
function harness(bodyWaitMs?: number, waitMs = 60_000) {
  const answers = new PassThrough();
  const calls = new PassThrough();
  const chunks: Buffer[] = [];
  answers.on('data', (chunk: Buffer) => chunks.push(chunk));
  const received: CallItem[] = [];
  const broken: string[] = [];
  const link = new HostBlockingLink(
    answers,
    calls,
    (call) => received.push(call),
    (why) => broken.push(why),
    waitMs,
    bodyWaitMs,
  );
  const frame = (item: CallItem, counts: { sent?: number; handled?: number } = {}): Buffer =>
    encodeCallFrame({ sent: 0, handled: 0, ...item, ...counts }) ?? Buffer.alloc(0);
  const call = (item: CallItem, counts?: { sent?: number; handled?: number }): void => {
    calls.write(frame(item, counts));
  };
  const written = (): unknown[] => decodeAnswers(Buffer.concat(chunks));
  return { link, calls, frame, call, written, received, broken };
}

const CALL: CallItem = { runId: 3, seq: 7, toolName: 'lookup', argsJson: '{"id":1}' };
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('HostBlockingLink', () => {
  it('hands the call on and answers it with its outcome, once', async () => {
    const h = harness();
    h.call(CALL);
    await tick();
    expect(h.received).toStrictEqual([CALL]);
    expect(h.link.answer(3, 7, { ok: true, valueJson: '42' })).toBe(true);
    // Answered: a second answer or a release writes nothing more.
    expect(h.link.answer(3, 7, { ok: true, valueJson: '43' })).toBe(false);
    h.link.release();
    await tick();
    expect(h.written()).toStrictEqual([{ seq: 7, outcome: { ok: true, valueJson: '42' } }]);
  });

  it('does not answer a call the process is not blocked on', async () => {
    const h = harness();
    h.call(CALL);
    await tick();
    expect(h.link.answer(3, 8, { ok: true, valueJson: '1' })).toBe(false);
    expect(h.link.answer(4, 7, { ok: true, valueJson: '1' })).toBe(false);
    expect(h.link.answer(3, 7, { ok: true, valueJson: '1' })).toBe(true);
    await tick();
    expect(h.written()).toStrictEqual([{ seq: 7, outcome: { ok: true, valueJson: '1' } }]);
  });

  it('releases a call not answered within the blocking wait; its outcome then goes elsewhere', async () => {
    const h = harness(undefined, BLOCKING_CALL_WAIT_MS);
    h.call(CALL);
    await sleep(BLOCKING_CALL_WAIT_MS * 10);
    expect(h.written()).toStrictEqual([{ release: true }]);
    expect(h.link.answer(3, 7, { ok: true, valueJson: '1' })).toBe(false);
  });

  it('releases at once when another message is about to go to the process', async () => {
    const h = harness();
    h.call(CALL);
    await tick();
    h.link.willSend();
    h.link.release();
    await tick();
    expect(h.written()).toStrictEqual([{ release: true }]);
  });

  it('reads frames split across chunks and several in one chunk', async () => {
    const h = harness();
    const bytes = h.frame(CALL);
    h.calls.write(bytes.subarray(0, 10));
    await tick();
    expect(h.received).toStrictEqual([]);
    h.calls.write(bytes.subarray(10, bytes.length - 1));
    await tick();
    expect(h.received).toStrictEqual([]);
    h.calls.write(bytes.subarray(bytes.length - 1));
    await tick();
    expect(h.received).toStrictEqual([CALL]);
    h.link.answer(3, 7, { ok: false, code: 'E', message: 'no' });
    h.calls.write(Buffer.concat([h.frame({ ...CALL, seq: 8 }), h.frame({ ...CALL, seq: 9 })]));
    await tick();
    expect(h.received.map((call) => call.seq)).toStrictEqual([7, 8, 9]);
  });

  it('carries arguments and outcomes as they are: quotes, backslashes, newlines and any script', async () => {
    const h = harness();
    const argsJson = JSON.stringify({ s: '"\\\n\u2028é漢字😀'.repeat(1_000) });
    h.call({ ...CALL, argsJson });
    await tick();
    expect(h.received).toStrictEqual([{ ...CALL, argsJson }]);
    h.link.answer(3, 7, { ok: true, valueJson: argsJson });
    await tick();
    expect(h.written()).toStrictEqual([{ seq: 7, outcome: { ok: true, valueJson: argsJson } }]);
    // The frame is the text's own bytes and a short header: nothing is escaped again.
    expect(h.frame({ ...CALL, argsJson }).length).toBeLessThan(Buffer.byteLength(argsJson) + 200);
  });

  it('on a real pipe, an answer larger than the pipe takes crosses whole, and the next one after it', async () => {
    // The host writes straight to the pipe's fd when its stream has nothing queued; what
    // the pipe does not take goes through the stream, and a later answer follows it.
    const file = join(mkdtempSync(join(tmpdir(), 'ptc-pipe-')), 'answers');
    const reader = spawn('sh', ['-c', `cat <&3 > '${file}'`], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
    const exited = new Promise((resolve) => reader.once('exit', resolve));
    const answers = reader.stdio[3] as Writable;
    const calls = new PassThrough();
    const received: CallItem[] = [];
    const link = new HostBlockingLink(
      answers,
      calls,
      (call) => received.push(call),
      () => undefined,
      60_000,
    );
    const big = JSON.stringify('"\\n漢😀'.repeat(400_000));
    calls.write(encodeCallFrame({ ...CALL, sent: 0, handled: 0 }) ?? Buffer.alloc(0));
    await tick();
    expect(link.answer(3, 7, { ok: true, valueJson: big })).toBe(true);
    calls.write(encodeCallFrame({ ...CALL, seq: 8, sent: 0, handled: 0 }) ?? Buffer.alloc(0));
    await tick();
    expect(link.answer(3, 8, { ok: false, code: 'E', message: 'second' })).toBe(true);
    answers.end();
    await exited;
    expect(decodeAnswers(readFileSync(file))).toStrictEqual([
      { seq: 7, outcome: { ok: true, valueJson: big } },
      { seq: 8, outcome: { ok: false, code: 'E', message: 'second' } },
    ]);
    expect(received.map((call) => call.seq)).toStrictEqual([7, 8]);
  });

  it('answers a call whose handled count is behind with a release at once, and still hands it on', async () => {
    const h = harness();
    // The host sent a message (a cancel, say) the process had not read when it made the call.
    h.link.willSend();
    h.link.sent();
    h.call(CALL, { handled: 0 });
    await tick();
    expect(h.written()).toStrictEqual([{ release: true }]);
    expect(h.received).toStrictEqual([CALL]);
    // Its outcome must then go over IPC, after that message.
    expect(h.link.answer(3, 7, { ok: true, valueJson: '1' })).toBe(false);
    h.call({ ...CALL, seq: 8 }, { handled: 1 });
    await tick();
    expect(h.link.answer(3, 8, { ok: true, valueJson: '2' })).toBe(true);
  });

  it('holds a call until the IPC messages the process sent before it are in, in order', async () => {
    const h = harness(undefined, BLOCKING_CALL_WAIT_MS);
    h.call(CALL, { sent: 2 });
    await tick();
    expect(h.received).toStrictEqual([]);
    h.link.heard();
    expect(h.received).toStrictEqual([]);
    // Released by time while held: the process goes on and may block on its next call.
    await sleep(BLOCKING_CALL_WAIT_MS * 10);
    expect(h.written()).toStrictEqual([{ release: true }]);
    h.call({ ...CALL, seq: 8 }, { sent: 2 });
    await tick();
    expect(h.received).toStrictEqual([]);
    h.link.heard();
    expect(h.received.map((call) => call.seq)).toStrictEqual([7, 8]);
    expect(h.link.answer(3, 8, { ok: true, valueJson: '2' })).toBe(true);
  });

  it("describes where the pipe stands for the watchdog's message: what came and went how long ago, what is unread", async () => {
    const h = harness();
    expect(h.link.describeWait()).toBe(
      'blocking-call pipe: bytes last came never, a call frame never, an answer or release last went never',
    );
    // A call held for an IPC message not yet heard.
    h.call(CALL, { sent: 1 });
    await tick();
    const held =
      /^blocking-call pipe: bytes last came (\d+) ms before, a call frame (\d+) ms before, an answer or release last went never, 1 calls held for IPC messages not yet heard$/.exec(
        h.link.describeWait(performance.now() + 250),
      );
    expect(held).not.toBeNull();
    expect(Number(held?.[1])).toBeGreaterThanOrEqual(250);
    expect(Number(held?.[2])).toBeGreaterThanOrEqual(250);
    h.link.heard();
    expect(h.link.answer(3, 7, { ok: true, valueJson: '1' })).toBe(true);
    expect(h.link.describeWait()).toMatch(/an answer or release last went \d+ ms before$/);
    // A header whose body has not all come.
    const frame = h.frame({ ...CALL, seq: 8 });
    h.calls.write(frame.subarray(0, frame.length - 3));
    await tick();
    expect(h.link.describeWait()).toMatch(/, a frame 3 bytes short of its body$/);
  });

  it('a frame that is not a call marks the process as broken, and nothing after it is read', async () => {
    const bodies = [
      'not json',
      '42',
      JSON.stringify({ runId: 1, seq: 1, toolName: 'x', bytes: 0 }),
      JSON.stringify({ runId: 1, seq: 1, toolName: 'x', sent: 0, handled: 0, bytes: -1 }),
    ];
    for (const header of bodies) {
      const h = harness();
      h.calls.write(`${header}\n`);
      h.calls.write(h.frame(CALL));
      await tick();
      expect([h.received, h.broken]).toStrictEqual([[], ['a malformed blocking call']]);
    }
  });

  it('a frame larger than any call may be marks the process as broken before its body is read', async () => {
    const h = harness();
    const header = { ...CALL, sent: 0, handled: 0, bytes: MAX_CALL_BODY_BYTES + 1 };
    h.calls.write(`${JSON.stringify(header)}\n`);
    await tick();
    expect(h.broken).toStrictEqual(['a blocking call over the size limit']);
    const long = harness();
    long.calls.write('x'.repeat(MAX_HEADER_BYTES + 1));
    await tick();
    expect(long.broken).toStrictEqual(['a blocking call over the size limit']);
  });

  describe('a frame whose body does not follow its header', () => {
    // Fake timers: the body's deadline is passed without waiting for it (the stream's own
    // events still come on the next tick).
    afterEach(() => {
      jest.useRealTimers();
    });
    const fakeTimers = (): void => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    };
    /** A header promising `bytes` of body, and the first `sent` bytes of a body that long. */
    const lyingFrame = (bytes: number, sent: number): string =>
      `${JSON.stringify({ ...CALL, argsJson: undefined, sent: 0, handled: 0, bytes })}\n${'x'.repeat(sent)}`;

    it('marks the process as broken once the body wait has passed: the call is not handed on, nothing is answered', async () => {
      fakeTimers();
      const h = harness();
      h.calls.write(lyingFrame(100, 7));
      await jest.advanceTimersByTimeAsync(CALL_FRAME_BODY_WAIT_MS - 1);
      expect(h.broken).toStrictEqual([]);
      // The check runs once the bytes already waiting are read (setImmediate after the deadline).
      await jest.advanceTimersByTimeAsync(2);
      expect(h.broken).toStrictEqual([
        `a blocking call whose body never came (its header promised 100 bytes; 93 had not come within the ${CALL_FRAME_BODY_WAIT_MS} ms wait)`,
      ]);
      expect([h.received, h.written()]).toStrictEqual([[], []]);
      // Nothing more is read: a well-formed call after it is not handed on.
      h.calls.write(h.frame(CALL));
      await jest.advanceTimersByTimeAsync(0);
      expect(h.received).toStrictEqual([]);
    });

    it('a header with no body at all is broken the same way', async () => {
      fakeTimers();
      const h = harness(50);
      h.calls.write(lyingFrame(10, 0));
      await jest.advanceTimersByTimeAsync(51);
      expect(h.broken).toStrictEqual([
        'a blocking call whose body never came (its header promised 10 bytes; 10 had not come within the 50 ms wait)',
      ]);
    });

    it('a body that keeps coming past the wait is read (a large call behind a full pipe), up to 10 waits in all', async () => {
      fakeTimers();
      const slow = harness(50);
      const bytes = slow.frame(CALL);
      const headerEnd = bytes.indexOf(0x0a) + 1;
      // Each deadline sees bytes that came since the one before: 75 ms in all, over the 50 ms wait.
      slow.calls.write(bytes.subarray(0, headerEnd + 2));
      await jest.advanceTimersByTimeAsync(25);
      slow.calls.write(bytes.subarray(headerEnd + 2, headerEnd + 4));
      await jest.advanceTimersByTimeAsync(50);
      expect(slow.broken).toStrictEqual([]);
      slow.calls.write(bytes.subarray(headerEnd + 4));
      await jest.advanceTimersByTimeAsync(500);
      expect([slow.received, slow.broken]).toStrictEqual([[CALL], []]);
      // A trickle is not enough for ever: one byte per wait is broken after 10 waits.
      const trickle = harness(50);
      trickle.calls.write(lyingFrame(100, 1));
      const oneWait = async (): Promise<void> => {
        await jest.advanceTimersByTimeAsync(25);
        trickle.calls.write('x');
        await jest.advanceTimersByTimeAsync(26);
      };
      for (let wait = 0; wait < 9; wait++) await oneWait();
      expect(trickle.broken).toStrictEqual([]);
      await oneWait();
      expect(trickle.broken).toStrictEqual([
        'a blocking call whose body never came (its header promised 100 bytes; 89 had not come within the 50 ms wait)',
      ]);
    });

    it('a host thread blocked for longer than 10 waits while the body was coming does not count against the process', async () => {
      fakeTimers();
      const h = harness(50);
      const bytes = h.frame(CALL);
      const headerEnd = bytes.indexOf(0x0a) + 1;
      h.calls.write(bytes.subarray(0, headerEnd + 2));
      await jest.advanceTimersByTimeAsync(0);
      // More of the body is in, then the host's thread is busy for 2 s: the clock moves,
      // no timer fires until the thread is free again.
      h.calls.write(bytes.subarray(headerEnd + 2, headerEnd + 4));
      jest.setSystemTime(Date.now() + 2_000);
      await jest.advanceTimersByTimeAsync(51);
      expect(h.broken).toStrictEqual([]);
      h.calls.write(bytes.subarray(headerEnd + 4));
      await jest.advanceTimersByTimeAsync(500);
      expect([h.received, h.broken]).toStrictEqual([[CALL], []]);
    });

    it('complete frames arm nothing: no frame in the stream, no report however long it is quiet', async () => {
      fakeTimers();
      const h = harness(50);
      h.call(CALL);
      h.call({ ...CALL, seq: 8 });
      await jest.advanceTimersByTimeAsync(5_000);
      expect(h.broken).toStrictEqual([]);
      expect(h.received).toHaveLength(2);
    });
  });

  it('a call whose header would be too long is not framed (it goes over IPC)', () => {
    const frame: CallFrame = { ...CALL, toolName: 't'.repeat(MAX_HEADER_BYTES), sent: 0, handled: 0 };
    expect(encodeCallFrame(frame)).toBeUndefined();
  });

  it('answers keep the recorded time and the error code', () => {
    const answer: BlockingAnswer = { seq: 2, outcome: { ok: false, code: 'E_X', message: 'no\n"x"', at: 123 } };
    const bytes = encodeAnswer(answer);
    const header = JSON.parse(bytes.subarray(0, bytes.indexOf(0x0a)).toString('utf8')) as Record<string, unknown>;
    expect(header).toStrictEqual({ seq: 2, ok: false, code: 'E_X', at: 123, bytes: 6 });
  });

  it('an error message that is not well-formed UTF-16 reads back whole; well-formed ones cross unescaped', () => {
    const readBack = (answer: BlockingAnswer): BlockingAnswer => {
      const file = join(mkdtempSync(join(tmpdir(), 'ptc-answer-')), 'answer');
      writeFileSync(file, encodeAnswer(answer));
      const fd = openSync(file, 'r');
      try {
        return readAnswerSync(fd);
      } finally {
        closeSync(fd);
      }
    };
    for (const message of ['a\ud800b', 'clipped \ud83d', '\ude00 alone', '"quoted" \\ \n 漢字😀', '']) {
      const answer: BlockingAnswer = { seq: 4, outcome: { ok: false, code: 'E', message, at: 9 } };
      expect(readBack(answer)).toStrictEqual(answer);
    }
    const plain = encodeAnswer({ seq: 1, outcome: { ok: false, code: 'E', message: '"x"' } });
    expect(plain.subarray(plain.indexOf(0x0a) + 1).toString('utf8')).toBe('"x"');
  });
});
