// The host end of process mode's blocking-call pipes: every call frame from the sandbox
// process gets exactly one answer (its outcome, or a release when the outcome is late or
// another message must go first); calls are handed on in order with the process's IPC
// messages; frames that are not calls, or larger than any call may be, mark the process
// as broken and nothing more is read. The sandbox-process end is exercised end to end by
// blocking-calls.test.ts, blocking-call-limits.test.ts and blocking-call-ordering.test.ts.
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
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
import { BLOCKING_CALL_WAIT_MS } from '../../sandbox/limits.ts';
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

function harness() {
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
  );
  const frame = (item: CallItem, counts: { sent?: number; handled?: number } = {}): Buffer =>
    Buffer.concat(encodeCallFrame({ sent: 0, handled: 0, ...item, ...counts }) ?? []);
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
    const h = harness();
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
    const h = harness();
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

  it('a call whose header would be too long is not framed (it goes over IPC)', () => {
    const frame: CallFrame = { ...CALL, toolName: 't'.repeat(MAX_HEADER_BYTES), sent: 0, handled: 0 };
    expect(encodeCallFrame(frame)).toBeUndefined();
  });

  it('answers keep the recorded time and the error code', () => {
    const answer: BlockingAnswer = { seq: 2, outcome: { ok: false, code: 'E_X', message: 'no\n"x"', at: 123 } };
    const header = JSON.parse(encodeAnswer(answer)[0].toString('utf8')) as Record<string, unknown>;
    expect(header).toStrictEqual({ seq: 2, ok: false, code: 'E_X', at: 123, bytes: 6 });
  });

  it('an error message that is not well-formed UTF-16 reads back whole; well-formed ones cross unescaped', () => {
    const readBack = (answer: BlockingAnswer): BlockingAnswer => {
      const file = join(mkdtempSync(join(tmpdir(), 'ptc-answer-')), 'answer');
      writeFileSync(file, Buffer.concat(encodeAnswer(answer)));
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
    expect(plain[1].toString('utf8')).toBe('"x"');
  });
});
