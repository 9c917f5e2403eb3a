// The host end of process mode's blocking-call pipes: every call frame from the sandbox
// process gets exactly one answer (its outcome, or a release when the outcome is late or
// another message must go first); frames that are not calls, or too long, mark the
// process as broken. The sandbox-process end is exercised by blocking-calls.test.ts.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { HostBlockingLink } from '../../sandbox/blocking-call-pipe.ts';
import { BLOCKING_CALL_WAIT_MS, MAX_ARGS_BYTES } from '../../sandbox/limits.ts';
import type { CallItem } from '../../sandbox/ipc-messages.ts';
import { sleep } from './helpers.ts';

function harness() {
  const answers = new PassThrough();
  const calls = new PassThrough();
  const written: unknown[] = [];
  answers.setEncoding('utf8');
  answers.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (line !== '') written.push(JSON.parse(line));
  });
  const received: CallItem[] = [];
  const broken: string[] = [];
  const link = new HostBlockingLink(
    answers,
    calls,
    (call) => received.push(call),
    (why) => broken.push(why),
  );
  const call = (item: CallItem): void => {
    calls.write(`${JSON.stringify(item)}\n`);
  };
  return { link, calls, call, written, received, broken };
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
    expect(h.written).toStrictEqual([{ seq: 7, outcome: { ok: true, valueJson: '42' } }]);
  });

  it('does not answer a call the process is not blocked on', async () => {
    const h = harness();
    h.call(CALL);
    await tick();
    expect(h.link.answer(3, 8, { ok: true, valueJson: '1' })).toBe(false);
    expect(h.link.answer(4, 7, { ok: true, valueJson: '1' })).toBe(false);
    expect(h.link.answer(3, 7, { ok: true, valueJson: '1' })).toBe(true);
    await tick();
    expect(h.written).toStrictEqual([{ seq: 7, outcome: { ok: true, valueJson: '1' } }]);
  });

  it('releases a call not answered within the blocking wait; its outcome then goes elsewhere', async () => {
    const h = harness();
    h.call(CALL);
    await sleep(BLOCKING_CALL_WAIT_MS * 10);
    expect(h.written).toStrictEqual([{ release: true }]);
    expect(h.link.answer(3, 7, { ok: true, valueJson: '1' })).toBe(false);
  });

  it('releases at once when asked (another message is about to go to the process)', async () => {
    const h = harness();
    h.call(CALL);
    await tick();
    h.link.release();
    h.link.release();
    await tick();
    expect(h.written).toStrictEqual([{ release: true }]);
  });

  it('reads frames split across chunks and several in one chunk', async () => {
    const h = harness();
    const text = `${JSON.stringify(CALL)}\n`;
    h.calls.write(text.slice(0, 10));
    await tick();
    expect(h.received).toStrictEqual([]);
    h.calls.write(text.slice(10));
    await tick();
    expect(h.received).toStrictEqual([CALL]);
    h.link.answer(3, 7, { ok: false, code: 'E', message: 'no' });
    h.calls.write(`${JSON.stringify({ ...CALL, seq: 8 })}\n${JSON.stringify({ ...CALL, seq: 9 })}\n`);
    await tick();
    expect(h.received.map((call) => call.seq)).toStrictEqual([7, 8, 9]);
  });

  it('a frame that is not a call marks the process as broken', async () => {
    for (const frame of ['not json', '42', JSON.stringify({ runId: 1, seq: 1, toolName: 'x' })]) {
      const h = harness();
      h.calls.write(`${frame}\n`);
      await tick();
      expect([h.received, h.broken]).toStrictEqual([[], ['a malformed blocking call']]);
    }
  });

  it('a frame longer than any call may be marks the process as broken before it ends', async () => {
    const h = harness();
    h.calls.write('x'.repeat(MAX_ARGS_BYTES + 70_000));
    await tick();
    expect(h.broken).toStrictEqual(['a blocking call over the size limit']);
  });
});
