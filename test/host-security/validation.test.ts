// Validation of model input runs on the host's event loop: its cost must not grow
// faster than the input. Schema patterns run on RE2 (linear), uniqueItems is linear,
// ajv stops at the first error and a message lists at most 10 issues.
import { describe, expect, it } from '@jest/globals';
import { defineJsonSchemaTool, defineTool } from '../../src/index.ts';
import { summarizeIssues } from '../../src/errors/summarize-issues.ts';
import { firstDuplicate } from '../../src/definition/linear-unique-items.ts';
import { expectFollowingRunFine, expectHeapKept, runHostCase, type BriefResult } from './helpers.ts';

const noop = { output: { schema: { type: 'json' as const }, render: () => [] }, execute: () => null };
const rawNoop = { output: { schema: {}, render: () => [] }, execute: () => null };

describe('schema patterns run in linear time (RE2)', () => {
  it('backtracking patterns on strings up to the argument limit: refused quickly, host fine', async () => {
    const report = await runHostCase<{ nested: BriefResult; direct: BriefResult }>('validation-pattern', 192);
    // 3 sizes (90 KB, 1 MB, 3.9 MB) × 3 patterns, then one valid call.
    expect(report.seen.nested.result).toEqual([...Array(9).fill('INVALID_ARGS'), 'ok']);
    expect(report.seen.direct).toMatchObject({
      isError: true,
      code: 'INVALID_ARGS',
      message: 'invalid arguments for tool "code": /a must match pattern "[0-9]+-[0-9]+"',
    });
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('each pattern of a schema keeps its own meaning (patterns are not shared by ajv key)', () => {
    const tool = defineTool({
      name: 'p',
      description: '',
      parameters: {
        a: { type: 'string', pattern: '^[0-9]+$' },
        b: { type: 'string', pattern: '^(\\w+\\s?)*$' },
        c: { type: 'string', pattern: 'é$' },
      },
      ...noop,
    });
    expect(tool.argIssues({ a: '12', b: 'two words', c: 'café' })).toEqual([]);
    expect(tool.argIssues({ a: 'x' })).toEqual([{ path: '/a', message: 'must match pattern "^[0-9]+$"' }]);
    expect(tool.argIssues({ b: 'two  words!' })).toEqual([
      { path: '/b', message: 'must match pattern "^(\\w+\\s?)*$"' },
    ]);
    expect(tool.argIssues({ c: 'cafe' })).toEqual([{ path: '/c', message: 'must match pattern "é$"' }]);
    // Unanchored, as JSON Schema says: a match anywhere is enough.
    expect(
      defineTool({
        name: 'q',
        description: '',
        parameters: { s: { type: 'string', pattern: '[0-9]-[0-9]' } },
        ...noop,
      }).argIssues({ s: 'ab1-2cd' }),
    ).toEqual([]);
  });

  it('a pattern RE2 cannot run (lookaround, backreference) is never run by a backtracking engine', () => {
    for (const pattern of ['^(?!admin)', '(a)\\1', 'x(?<=y)']) {
      // Our own DSL: refused at definition time, saying why.
      expect(() =>
        defineTool({ name: 'r', description: '', parameters: { s: { type: 'string', pattern } }, ...noop }),
      ).toThrow(
        /parameters could not be compiled: pattern .* cannot run in linear time .*lookaround and backreferences are not supported/,
      );
      // An outside schema (MCP, zod): the tool is kept, unvalidated there, with a warning that says why.
      const outside = defineJsonSchemaTool({
        name: 'r',
        description: '',
        parameters: { type: 'object', properties: { s: { type: 'string', pattern } } },
        ...rawNoop,
      });
      expect((outside.schemaWarnings ?? []).join('\n')).toMatch(/cannot run in linear time/);
    }
  });
});

describe('uniqueItems is linear', () => {
  it('14,000 small arrays, 100,000 objects and nested duplicates: answered, host fine', async () => {
    const report = await runHostCase<{ run: BriefResult }>('validation-unique-items', 192);
    expect(report.seen.run.result).toEqual([
      14_000,
      100_000,
      'INVALID_ARGS',
      'invalid arguments for tool "rows": /rows must NOT have duplicate items (items ## 100000 and 0 are identical)',
      'INVALID_ARGS',
    ]);
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('uses JSON Schema equality: key order does not matter, types do, 0 equals -0', () => {
    expect(
      firstDuplicate([
        { a: 1, b: [2] },
        { b: [2], a: 1 },
      ]),
    ).toEqual([0, 1]);
    expect(firstDuplicate([1, '1', [1], { 1: 1 }, null, 'null', true, 'true'])).toBeUndefined();
    expect(firstDuplicate([0, -0])).toEqual([0, 1]);
    expect(
      firstDuplicate([
        [1, 2],
        [2, 1],
      ]),
    ).toBeUndefined();
    expect(firstDuplicate([])).toBeUndefined();
  });
});

describe('errors stay small', () => {
  it('200,000 bad elements give one short message (the first issue), through direct and nested calls', async () => {
    const report = await runHostCase<{ ints: BriefResult; shapes: BriefResult; nested: BriefResult }>(
      'validation-errors',
      128,
    );
    expect(report.seen.ints).toMatchObject({
      isError: true,
      code: 'INVALID_ARGS',
      message: 'invalid arguments for tool "ints": /xs/0 must be integer',
    });
    // anyOf reports its branches of the first bad element, no more.
    expect(report.seen.shapes).toMatchObject({ isError: true, code: 'INVALID_ARGS' });
    expect(report.seen.shapes.messageLength).toBeLessThan(300);
    expect(report.seen.nested.result).toEqual(['INVALID_ARGS', 56]);
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('a message lists at most 10 issues, each cut to 200 characters, and counts the rest', () => {
    const issues = Array.from({ length: 25 }, (_, i) => ({
      path: `/x/${i}`,
      message: 'm'.repeat(i === 0 ? 5_000 : 3),
    }));
    const text = summarizeIssues(issues);
    expect(text.startsWith(`/x/0 ${'m'.repeat(200)}…; /x/1 mmm`)).toBe(true);
    expect(text.endsWith('/x/9 mmm; and 15 more')).toBe(true);
    expect(summarizeIssues([{ path: '', message: 'must be object' }])).toBe('(root) must be object');
  });
});
