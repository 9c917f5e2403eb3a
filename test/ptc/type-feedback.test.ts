// typecheck: 'off' | 'warn' | 'error' — a run_code program is checked against the SDK
// the model was shown, by a warm TypeScript checker in a worker thread, before it runs.
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTool } from '../../src/index.ts';
import { createProgramTypeChecker } from '../../src/ptc/program-type-checker.ts';
import { ptcRuntimes, runCode } from './helpers.ts';

const body = jest.fn((args: { id: number }) => ({ id: args.id, name: `item ${args.id}` }));
const getItem = defineTool({
  name: 'get_item',
  description: 'One item by id.',
  parameters: { id: { type: 'integer', required: true, minimum: 1 } },
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { id: { type: 'number', required: true }, name: { type: 'string', required: true } },
    },
    render: (_a, v) => [{ type: 'text', text: v.name }],
  },
  execute: (args) => body(args),
});

const WRONG = `const item = await tools.get_item({ id: 1 });
const n: number = item.name;
await tools.get_item({ idd: 2 } as never);
return n;`;

describe('typecheck', () => {
  const runtime = ptcRuntimes();

  it("'off' (the default): a program with type errors runs", async () => {
    const rt = runtime();
    rt.register(getItem);
    const result = await runCode(rt, 'const n: number = "s"; return n;');
    expect(result.value).toEqual({ logs: [], result: 's' });
  });

  it("'error': a program with type errors does not run; CODE_RUN_FAILED kind compile with line:column diagnostics in the model's code", async () => {
    const rt = runtime({ typecheck: 'error' });
    rt.register(getItem);
    body.mockClear();
    const result = await runCode(rt, WRONG);
    expect(result.isError).toBe(true);
    expect(result.error).toMatchObject({
      code: 'CODE_RUN_FAILED',
      info: {
        kind: 'compile',
        line: 2,
        column: 7,
        diagnostics: ["2:7 Type 'string' is not assignable to type 'number'."],
      },
    });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: "Error: run_code failed (compile): the program does not type-check against the SDK (typecheck: 'error'); it did not run:\n2:7 Type 'string' is not assignable to type 'number'.",
      },
    ]);
    expect(body).not.toHaveBeenCalled();
    // A misspelled argument is a type error too (the argument root is closed in the SDK).
    const misspelled = await runCode(rt, 'return await tools.get_item({ idd: 1 });');
    expect(misspelled.error).toMatchObject({
      info: {
        kind: 'compile',
        line: 1,
        diagnostics: [
          expect.stringMatching(/^1:\d+ Object literal may only specify known properties, and 'idd' does not exist/u),
        ],
      },
    });
    const fine = await runCode(rt, 'const item = await tools.get_item({ id: 3 });\nreturn item.name;');
    expect(fine.value).toEqual({ logs: [], result: 'item 3' });
  });

  it("'warn': the program runs and its type errors follow the output", async () => {
    const rt = runtime({ typecheck: 'warn' });
    rt.register(getItem);
    const result = await runCode(rt, 'console.log("hi");\nconst n: number = "s";\nreturn n;');
    expect(result.value).toEqual({
      logs: ['hi'],
      result: 's',
      typeErrors: ["2:7 Type 'string' is not assignable to type 'number'."],
    });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: "hi\ns\n\nType errors (the program ran anyway):\n2:7 Type 'string' is not assignable to type 'number'.",
      },
    ]);
    // No type errors: nothing is added.
    expect((await runCode(rt, 'return (await tools.get_item({ id: 1 })).id;')).value).toEqual({ logs: [], result: 1 });
    // A failing program reports its type errors with the failure.
    const failed = await runCode(rt, 'const x: string = 1;\nthrow new Error("boom");');
    expect(failed.error).toMatchObject({
      code: 'CODE_RUN_FAILED',
      info: { kind: 'exception', typeErrors: ["1:7 Type 'number' is not assignable to type 'string'."] },
    });
    expect(failed.error?.message).toContain("Type errors:\n1:7 Type 'number' is not assignable to type 'string'.");
  });

  it('refuses a bad setting at construction', () => {
    expect(() => runtime({ typecheck: 'strict' as never })).toThrow(
      "createToolRuntime: typecheck must be 'off', 'warn' or 'error', got \"strict\"",
    );
  });
});

describe('the program type checker', () => {
  const checkers: Array<ReturnType<typeof createProgramTypeChecker>> = [];
  afterAll(async () => {
    await Promise.all(checkers.map((c) => c.close()));
  });

  it('stops a check past its deadline (the worker is terminated) and the next check still answers', async () => {
    const checker = createProgramTypeChecker({ timeoutMs: 1 });
    checkers.push(checker);
    const sdk = 'declare const tools: {};\n';
    // A check takes far longer than 1 ms (loading TypeScript in a new worker is not counted).
    expect(await checker.check(sdk, 'return 1;')).toEqual({
      ok: false,
      reason: 'the type check took longer than 1 ms and was stopped',
    });
    expect(await checker.check(sdk, 'return 1;')).toEqual({
      ok: false,
      reason: 'the type check took longer than 1 ms and was stopped',
    });
    const patient = createProgramTypeChecker();
    checkers.push(patient);
    expect(await patient.check(sdk, 'const s: string = 1;')).toEqual({
      ok: true,
      diagnostics: [{ line: 1, column: 7, code: 2322, message: "Type 'number' is not assignable to type 'string'." }],
    });
  });

  it('an SDK that does not type-check is a failed check, not a crash', async () => {
    const checker = createProgramTypeChecker();
    checkers.push(checker);
    expect(await checker.check('declare const tools: {', 'return 1;')).toEqual({
      ok: false,
      reason: expect.stringContaining('checkProgram: the SDK text has'),
    });
  });

  it("TypeScript is never in the root entry's static import graph", () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const seen = new Set<string>();
    const packages = new Set<string>();
    const stack = [resolve(root, 'src/index.ts')];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const match of readFileSync(file, 'utf8').matchAll(
        /^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'/gmu,
      )) {
        const spec = match[1] ?? match[2]!;
        if (spec.startsWith('.')) stack.push(resolve(dirname(file), spec));
        else packages.add(spec);
      }
    }
    expect(seen.has(resolve(root, 'src/ptc/program-type-checker.ts'))).toBe(true);
    expect([...packages].filter((p) => p === 'typescript' || p.startsWith('typescript/'))).toEqual([]);
  });
});
