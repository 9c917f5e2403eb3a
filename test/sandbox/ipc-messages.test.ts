// The host trusts the sandbox process less than itself: every message it takes from the
// child is checked for shape, batched calls item by item.
import { describe, expect, it } from '@jest/globals';
import { heardCount, parseChildMessage } from '../../sandbox/ipc-messages.ts';

describe('parseChildMessage', () => {
  const call = { runId: 1, seq: 1, toolName: 'a', argsJson: '{}' };

  it('takes well-formed single and batched calls', () => {
    expect(parseChildMessage({ type: 'call', ...call })).toStrictEqual({ type: 'call', ...call });
    const batch = { type: 'calls', calls: [call, { ...call, seq: 2 }] };
    expect(parseChildMessage(batch)).toStrictEqual(batch);
    expect(parseChildMessage({ type: 'pong' })).toStrictEqual({ type: 'pong' });
  });

  it.each([
    ['calls that is not an array', { type: 'calls', calls: { 0: call } }],
    ['an item without a runId', { type: 'calls', calls: [call, { seq: 2, toolName: 'a', argsJson: '{}' }] }],
    ['an item whose arguments are not text', { type: 'calls', calls: [{ ...call, argsJson: {} }] }],
    ['an item that is null', { type: 'calls', calls: [null] }],
    ['an unknown type', { type: 'exec', code: 'x' }],
    ['a call whose seq is text', { type: 'call', ...call, seq: '1' }],
  ])('refuses %s', (_name, message) => {
    expect(parseChildMessage(message)).toBeUndefined();
  });
});

describe('heardCount', () => {
  it('reads how many host messages the process had handled', () => {
    expect(heardCount({ type: 'pong', heard: 0 })).toBe(0);
    expect(heardCount({ type: 'done', runId: 1, heard: 41 })).toBe(41);
  });

  it.each([
    ['no count', { type: 'pong' }],
    ['a count in text', { type: 'pong', heard: '3' }],
    ['a negative count', { type: 'pong', heard: -1 }],
    ['a fractional count', { type: 'pong', heard: 1.5 }],
    ['an unsafe integer', { type: 'pong', heard: 2 ** 60 }],
    ['no object', 7],
    ['null', null],
  ])('ignores %s', (_name, message) => {
    expect(heardCount(message)).toBeUndefined();
  });
});
