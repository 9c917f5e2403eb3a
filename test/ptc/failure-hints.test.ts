// Hints for common model mistakes, appended to a failed run's message.
import { describe, expect, it } from '@jest/globals';
import { failureHint } from '../../src/ptc/failure-hints.ts';

describe('failureHint', () => {
  it('a module import or export is a compile error with a hint that programs are function bodies', () => {
    expect(
      failureHint('compile', 'Syntax error at line 1, column 8: Unexpected "fs"', 'import fs from "fs";\nreturn 1', []),
    ).toMatch(/no import or export/);
    expect(failureHint('compile', 'Unexpected "export"', 'export const x = 1', [])).toMatch(/no import or export/);
    expect(failureHint('compile', 'Unexpected "}"', 'return }', [])).toBeUndefined();
  });

  it('calling a tool that is not bound lists the available ones', () => {
    const hint = failureHint(
      'exception',
      'TypeError: tools.gamma is not a function (at line 1, column 20)',
      'await tools.gamma({})',
      ['alpha', 'x-y'],
    );
    expect(hint).toBe(
      'Hint: no such tool is available to this program. Available tools: "alpha", "x-y". Names that are not identifiers need brackets: tools["x-y"](args).',
    );
    expect(failureHint('exception', 'TypeError: tools.x-y is not a function', 'await tools["x-y"]({})', [])).toMatch(
      /Available tools: \(none\)/,
    );
    const many = Array.from({ length: 45 }, (_, i) => `t${i}`);
    expect(failureHint('exception', 'TypeError: tools.nope is not a function', '', many)).toMatch(
      /"t39", … \(5 more\)\./,
    );
  });

  it('dynamic import() gets a hint; other failures get none', () => {
    expect(failureHint('exception', 'Error: Not supported', 'await import("fs")', [])).toMatch(
      /dynamic import\(\) is not available/,
    );
    expect(failureHint('exception', 'Error: boom', 'throw new Error("boom")', ['a'])).toBeUndefined();
    expect(failureHint('timeout', 'The run exceeded its wall-clock limit', 'for(;;){}', ['a'])).toBeUndefined();
  });
});
