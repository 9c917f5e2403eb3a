// Small pure pieces: log cap, limit merging, version check, stack-to-source mapping.
import { describe, expect, it } from '@jest/globals';
import { compileProgram } from '../../sandbox/compile-program.ts';
import { versionAtLeast } from '../../sandbox/isolated-vm-version.ts';
import { DEFAULT_LIMITS, resolveLimits } from '../../sandbox/limits.ts';
import { locateInProgram } from '../../sandbox/locate-in-program.ts';
import { LOG_LINE_MIN_BYTES, LogBuffer, utf8Prefix } from '../../sandbox/log-buffer.ts';

describe('LogBuffer', () => {
  const caps = (maxBytes: number, maxLines = 1_000) => ({ maxBytes, maxLines });

  it('keeps whole lines until the cap, cuts the line that crosses it, then adds one marker', () => {
    const logs = new LogBuffer(caps(40));
    expect(logs.add('a'.repeat(20))).toBe('a'.repeat(20));
    expect(logs.add('b'.repeat(30))).toBe('b'.repeat(20));
    expect(logs.add('k')).toBeUndefined();
    expect(logs.lines()).toStrictEqual(['a'.repeat(20), 'b'.repeat(20), '[log output truncated: more than 40 bytes]']);
  });

  it('counts UTF-8 bytes and never splits a surrogate pair', () => {
    expect(utf8Prefix('a😀b', 4)).toBe('a');
    expect(utf8Prefix('a😀b', 5)).toBe('a😀');
    const logs = new LogBuffer(caps(21));
    logs.add('é'.repeat(15));
    expect(logs.lines()).toStrictEqual(['é'.repeat(10), '[log output truncated: more than 21 bytes]']);
  });

  it(`counts every line as at least ${LOG_LINE_MIN_BYTES} bytes: empty lines are not free`, () => {
    const logs = new LogBuffer(caps(LOG_LINE_MIN_BYTES * 4));
    for (let i = 0; i < 4; i++) expect(logs.add('')).toBe('');
    expect(logs.add('')).toBeUndefined();
    expect(logs.lines()).toStrictEqual([
      '',
      '',
      '',
      '',
      `[log output truncated: more than ${LOG_LINE_MIN_BYTES * 4} bytes]`,
    ]);
  });

  it('caps the number of lines', () => {
    const logs = new LogBuffer(caps(100_000, 3));
    for (let i = 0; i < 3; i++) expect(logs.add(`line ${i}`)).toBe(`line ${i}`);
    expect(logs.add('line 3')).toBeUndefined();
    expect(logs.lines()).toStrictEqual(['line 0', 'line 1', 'line 2', '[log output truncated: more than 3 lines]']);
  });

  it('shows the marker when the guest reports a truncation', () => {
    const logs = new LogBuffer(caps(100));
    logs.add('a');
    logs.markTruncated('lines');
    logs.add('b');
    expect(logs.lines()).toStrictEqual(['a', '[log output truncated: more than 1000 lines]']);
  });
});

describe('resolveLimits', () => {
  it('layers run limits over sandbox limits over the defaults', () => {
    expect(resolveLimits({ maxCalls: 5, wallTimeMs: 10 }, { wallTimeMs: 20 })).toStrictEqual({
      ...DEFAULT_LIMITS,
      maxCalls: 5,
      wallTimeMs: 20,
    });
  });

  it('names the bad field', () => {
    expect(() => resolveLimits({ maxCalls: 0 })).toThrow('sandbox limit maxCalls must be a positive integer, got 0');
    expect(() => resolveLimits({ bogus: 1 } as never)).toThrow(/unknown sandbox limit "bogus"/);
  });
});

describe('versionAtLeast', () => {
  it('compares major.minor.patch numerically', () => {
    expect(versionAtLeast('7.0.1', '7.0.1')).toBe(true);
    expect(versionAtLeast('7.0.0', '7.0.1')).toBe(false);
    expect(versionAtLeast('6.2.0', '7.0.1')).toBe(false);
    expect(versionAtLeast('10.0.0', '7.0.1')).toBe(true);
    expect(versionAtLeast('7.1.0-beta.1', '7.0.1')).toBe(true);
  });
});

describe('locateInProgram', () => {
  it('maps a guest stack frame back to the model code through the source map', async () => {
    const compiled = await compileProgram('type T = { a: number };\nconst x: T = { a: 1 };\n\n  throw new Error("x");');
    if (!compiled.ok) throw new Error(compiled.message);
    const jsLines = compiled.program.js.split('\n');
    const line = jsLines.findIndex((text) => text.includes('throw new Error'));
    const column = (jsLines[line] ?? '').indexOf('new Error') + 1;
    const stack = `Error: x\n    at program.ts:${line + 1}:${column}`;
    expect(locateInProgram(compiled.program, stack)).toStrictEqual({ line: 4, column: 9 });
  });

  it('returns undefined without a program frame', async () => {
    const compiled = await compileProgram('return 1;');
    if (!compiled.ok) throw new Error(compiled.message);
    expect(locateInProgram(compiled.program, 'Error: x\n    at ptc-prelude.js:1:1')).toBeUndefined();
    expect(locateInProgram(compiled.program, undefined)).toBeUndefined();
  });
});
