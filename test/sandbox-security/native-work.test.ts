// Native work the CPU budget cannot interrupt: V8 runs JSON.parse and the compilation of
// a regular expression to the end once started (seen: a 3-million-level JSON.parse ran
// 6.7 s against a 0.5 s limit; a million-branch alternation took 797 MB against a
// 128 MiB heap). Their inputs are bounded before the native call; ordinary uses still work.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import {
  MAX_JSON_PARSE_DEPTH,
  MAX_JSON_PARSE_VALUES,
  MAX_REGEXP_SOURCE_CHARS,
} from '../../sandbox/guest/native-work-guards.ts';
import { expectFailure, expectResult, recordingHost } from './helpers.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 1_000 } });
afterAll(() => sandbox.close());
// The sandbox process starts first: its start (seconds under load) is not what the timed cases measure.
beforeAll(async () => {
  expectResult(await sandbox.run({ code: 'return 1;', toolNames: [], hostCall: recordingHost([]).hostCall }), 1);
}, 60_000);

const run = (code: string) => sandbox.run({ code, toolNames: [], hostCall: recordingHost([]).hostCall });

const refused: readonly [string, string, RegExp][] = [
  [
    'JSON.parse of 3,000,000 nested arrays',
    'const s = "[".repeat(3e6) + "]".repeat(3e6); return JSON.parse(s).length;',
    new RegExp(`nests deeper than ${MAX_JSON_PARSE_DEPTH} levels`),
  ],
  [
    'JSON.parse of 5,000,000 empty arrays',
    'const s = "[" + "[],".repeat(5e6) + "[]]"; return JSON.parse(s).length;',
    new RegExp(`more than ${MAX_JSON_PARSE_VALUES} values`),
  ],
  [
    'new RegExp of a 300,000-branch alternation',
    'const p = []; for (let i = 0; i < 300000; i++) p.push("a" + i); return new RegExp(p.join("|")).test("zz");',
    new RegExp(`longer than the ${MAX_REGEXP_SOURCE_CHARS} this sandbox compiles`),
  ],
  [
    'RegExp called without new',
    'return RegExp("x".repeat(70000)).test("x");',
    /RegExp: a regular expression source of 70000 characters/,
  ],
  [
    'String.prototype.match with a long string pattern',
    'return "zz".match("(a|b)".repeat(20000));',
    /String\.prototype\.match: a regular expression source of 100000/,
  ],
  [
    'String.prototype.search with a long string pattern',
    'return "zz".search("a|".repeat(40000) + "b");',
    /String\.prototype\.search/,
  ],
  ['RegExp.prototype.compile', 'const r = /a/; r.compile("a|".repeat(40000)); return r.source.length;', /compile/],
];

describe('native work is bounded before it starts', () => {
  it.each(refused)('%s is refused at once', async (_name, code, message) => {
    const started = Date.now();
    const outcome = await run(code);
    expectFailure(outcome, ['exception'], message);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('ordinary JSON and regular expressions still work, and a RegExp is still a RegExp', async () => {
    const outcome = await run(`
      const v = JSON.parse('{"a":[1,2,{"b":"[[[,,,"}],"c":"\\\\""}', (k, x) => (k === 'a' ? x.length : x));
      const r = new RegExp("(\\\\d+)-(\\\\d+)", "g");
      const parts = "10-20 30-40".replace(r, "$2-$1");
      return [v, parts, /x/ instanceof RegExp, r instanceof RegExp, r.constructor === RegExp, "a1b2".match(/\\d/g),
        [..."a1b2".matchAll(/\\d/g)].length, "abc".search("c"), "a,b".split(/,/), RegExp.name, JSON.parse("[1]").length,
        JSON.parse(${JSON.stringify(JSON.stringify(Array.from({ length: 1000 }, (_, i) => [i])))}).length];
    `);
    expectResult(outcome, [
      { a: 3, c: '"' },
      '20-10 40-30',
      true,
      true,
      true,
      ['1', '2'],
      2,
      2,
      ['a', 'b'],
      'RegExp',
      1,
      1000,
    ]);
  });
});
