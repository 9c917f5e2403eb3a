// The compiler under attack: programs whose compiled output would grow with the square
// of their nesting, programs that kill esbuild's service or keep it busy, and programs
// over the size limits. Each must end as a `compile` failure (CODE_RUN_FAILED through
// run_code), leave the host alive with bounded memory, and never fail a later run or an
// innocent concurrent compile.
import { afterAll, describe, expect, it } from '@jest/globals';
import { COMPILE_TIME_LIMIT_MS, MAX_PROGRAM_BYTES } from '../../sandbox/compile-program.ts';
import { compileProgram, createSandbox } from '../../sandbox/index.ts';
import { createToolRuntime } from '../../src/index.ts';
import { expectFailure, expectHealthy, expectResult, memorySnapshot, peakGrowthMb, recordingHost } from './helpers.ts';

const sandbox = createSandbox();
afterAll(() => sandbox.close());

/** Host heap and RSS growth must stay far below what the attacks produced before (hundreds of MiB, or a crash). */
const HOST_GROWTH_LIMIT_MB = 150;

async function runHostile(code: string): Promise<ReturnType<typeof peakGrowthMb>> {
  const before = memorySnapshot();
  const rec = recordingHost([]);
  const outcome = await sandbox.run({ code, toolNames: [], hostCall: rec.hostCall });
  expectFailure(outcome, ['compile']);
  if (!outcome.ok) {
    expect(outcome.message.length).toBeLessThan(4_000);
    expect(outcome.message).toMatch(/Syntax error|compiler could not compile|over the limit|nests too deeply/);
  }
  const growth = peakGrowthMb(before);
  expect(growth.hostMb).toBeLessThan(HOST_GROWTH_LIMIT_MB);
  await expectHealthy(sandbox);
  return growth;
}

describe('compile is bounded', () => {
  it.each([
    ['17,000 nested blocks', '{'.repeat(17_000) + '}'.repeat(17_000) + '\nreturn 1 +'],
    ['60,000 nested blocks, unclosed', '{'.repeat(60_000)],
    ['40,000 nested arrays', 'return ' + '['.repeat(40_000) + ']'.repeat(40_000) + ' +'],
    ['20,000 nested ifs', 'if (1) '.repeat(20_000) + 'x = ;'],
  ])(
    'deep nesting (%s) compiles to linear output or fails as compile',
    async (_name, code) => {
      await runHostile(code);
    },
    60_000,
  );

  it('deep nesting that is valid compiles with output linear in its size, and runs', async () => {
    const depth = 17_000;
    const code = '{'.repeat(depth) + '}'.repeat(depth) + '\nreturn 7;';
    // The compiler's own output, past the nesting bound that refuses this program first (about 6 s of
    // esbuild on an idle machine: a longer deadline, so that a loaded one does not fail the check of its size).
    const compiled = await compileProgram(code, { maxNestingDepth: Number.POSITIVE_INFINITY, deadlineMs: 40_000 });
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.program.js.length).toBeLessThan(code.length * 2 + 500);
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: recordingHost([]).hostCall });
    // V8 may refuse this depth itself; either way it is a clean outcome and the host lives.
    if (outcome.ok) expectResult(outcome, 7);
    else expectFailure(outcome, ['compile', 'exception']);
    await expectHealthy(sandbox);
  }, 60_000);

  it.each([
    ['100,000 nested arrows', 'return ' + '()=>'.repeat(100_000) + '1'],
    ['200,000 nested arrows', 'return ' + '()=>'.repeat(200_000) + '1'],
    ['100,000 nested parenthesized arrows', 'return ' + '(()=>'.repeat(100_000) + '1' + ')'.repeat(100_000)],
  ])(
    'a program that kills the compiler service (%s) is a compile failure, and the next run compiles',
    async (_name, code) => {
      await runHostile(code);
    },
    60_000,
  );

  it('a compiler killed by one program does not fail innocent programs compiled at the same time', async () => {
    const innocent = Array.from({ length: 6 }, (_, i) => compileProgram(`const x: number = ${i};\nreturn x * 2;`));
    const hostile = compileProgram('return ' + '()=>'.repeat(150_000) + '1', {
      maxNestingDepth: Number.POSITIVE_INFINITY,
    });
    const more = Array.from({ length: 6 }, (_, i) => compileProgram(`return ${i} + 1;`));
    const results = await Promise.all([...innocent, ...more]);
    for (const result of results) expect(result.ok).toBe(true);
    const bad = await hostile;
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/compiler could not compile this program/);
  }, 60_000);

  it('a program that keeps the compiler busy past its deadline is stopped as a compile failure', async () => {
    const started = Date.now();
    const result = await compileProgram('return ' + '()=>'.repeat(30_000) + '1', {
      deadlineMs: 300,
      maxNestingDepth: Number.POSITIVE_INFINITY,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/compiling took longer than 300 ms/);
    // Bounded by the deadline (a generous bound for a loaded machine, not a timing claim).
    expect(Date.now() - started).toBeLessThan(COMPILE_TIME_LIMIT_MS);
    const next = await compileProgram('return 1;');
    expect(next.ok).toBe(true);
  }, 60_000);

  it.each([
    ['one line', 'x'.repeat(MAX_PROGRAM_BYTES + 1)],
    [
      'many lines of comments',
      '// padding padding padding\n'.repeat(Math.ceil(MAX_PROGRAM_BYTES / 27) + 1) + 'return 1;',
    ],
    ['multi-byte characters', `return "${'é'.repeat(MAX_PROGRAM_BYTES / 2 + 1)}";`],
  ])(
    'a program over the size limit (%s) is refused before compiling',
    async (_name, code) => {
      const result = await compileProgram(code);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toMatch(new RegExp(`over the limit of ${MAX_PROGRAM_BYTES} bytes`));
      await runHostile(code);
    },
    60_000,
  );
});

describe('run_code reports every compile failure as CODE_RUN_FAILED kind compile', () => {
  it.each([
    ['a syntax error', 'return 1 +'],
    ['a compiler crash', 'return ' + '()=>'.repeat(100_000) + '1'],
    ['an oversized program', `return 1; // ${'x'.repeat(MAX_PROGRAM_BYTES)}`],
  ])(
    '%s',
    async (_name, code) => {
      const rt = createToolRuntime({ mode: 'ptc', sandbox });
      try {
        const result = await rt.execute({
          callId: 'c',
          name: 'run_code',
          arguments: { description: 'Compile attack', code },
        });
        expect(result.isError).toBe(true);
        expect(result.error?.code).toBe('CODE_RUN_FAILED');
        expect((result.error as { info?: { kind?: string } } | undefined)?.info?.kind).toBe('compile');
        const next = await rt.execute({
          callId: 'd',
          name: 'run_code',
          arguments: { description: 'Ordinary', code: 'return 2 * 3;' },
        });
        expect(next.isError).toBe(false);
        expect((next.value as { result?: unknown }).result).toBe(6);
      } finally {
        await rt.close();
      }
    },
    60_000,
  );
});

// esbuild passes this regular expression through; V8 refuses it when the program is
// compiled inside the isolate (compiled while the run is configured, one turn of its thread).
describe.each(['process', 'in-process'] as const)('a program V8 refuses to compile (%s)', (isolation) => {
  const box = createSandbox({ isolation, poolSize: 1 });
  afterAll(() => box.close());

  it('ends as compile with V8 reason, and the next run on the sandbox is served', async () => {
    const rec = recordingHost([]);
    const outcome = await box.run({
      code: 'const twice = /(?<a>x)(?<a>y)/; return twice.source;',
      toolNames: [],
      hostCall: rec.hostCall,
    });
    expectFailure(outcome, ['compile']);
    if (!outcome.ok)
      expect(outcome.message).toMatch(/could not be compiled: SyntaxError: .*Duplicate capture group name/);
    expectResult(await box.run({ code: 'return 2 * 3;', toolNames: [], hostCall: rec.hostCall }), 6);
  });
});
