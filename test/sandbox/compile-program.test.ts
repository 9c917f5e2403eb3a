// esbuild compile of the model's program: types stripped, syntax errors located in the
// model's own text with an excerpt, and no way to close the body wrapper early.
import { describe, expect, it } from '@jest/globals';
import { compileProgram } from '../../sandbox/index.ts';

async function compileError(code: string): Promise<{ message: string; location: { line: number; column: number } }> {
  const result = await compileProgram(code);
  if (result.ok) throw new Error(`expected a compile error for ${JSON.stringify(code)}`);
  if (result.location === undefined) throw new Error(`expected a located compile error, got: ${result.message}`);
  return { message: result.message, location: result.location };
}

describe('compileProgram', () => {
  it('strips types without type checking and keeps top-level await and return', async () => {
    const result = await compileProgram(
      'const n: string = 42 as unknown as string;\ninterface X { a: number }\nconst r = await tools.a({});\nreturn n;',
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.program.js).toContain('await tools.a({})');
    expect(result.program.js).not.toContain('interface');
    expect(result.program.lineCount).toBe(4);
  });

  it('reports a syntax error at its line and column in the model code, with an excerpt', async () => {
    const error = await compileError('const a = 1;\nconst b = ;\n');
    expect(error.location).toStrictEqual({ line: 2, column: 11 });
    expect(error.message).toBe('Syntax error at line 2, column 11: Unexpected ";"\n2 | const b = ;\n  |           ^');
  });

  it('counts columns in characters, not UTF-8 bytes', async () => {
    const line = 'const é = "ü"; const y = )';
    const error = await compileError(`// first\n${line}`);
    expect(error.location).toStrictEqual({ line: 2, column: line.indexOf(')') + 1 });
  });

  it('places an unclosed bracket at the end of the program, not in the wrapper', async () => {
    const error = await compileError('if (ready) {\n  await tools.go({});');
    expect(error.location).toStrictEqual({ line: 2, column: 22 });
    expect(error.message).toMatch(/unexpected end of the program \(is a bracket, brace or string left open\?\)/);
  });

  it('handles CRLF line breaks', async () => {
    const error = await compileError('const a = 1;\r\nconst b = 2;\r\nconst = 3;');
    expect(error.location.line).toBe(3);
  });

  it('makes closing the body wrapper early a compile error', async () => {
    for (const code of [
      'return 1 })(); globalThis.escaped = true; (async () => {',
      '} globalThis.escaped = true; async function again() {',
      '}); globalThis.escaped = true; __ptc_start(async function () {',
      '} }); globalThis.escaped = true; __ptc_start(async function () { x: {',
    ]) {
      await compileError(code);
    }
    const error = await compileError('} globalThis.escaped = true; async function again() {');
    expect(error.message).toMatch(/closes the function body it runs in/);
  });

  it('rejects import and export statements (the program is a function body)', async () => {
    await compileError('import fs from "node:fs";');
    await compileError('export const a = 1;');
  });

  it('rejects a code value that is not a string with a TypeError', async () => {
    await expect(compileProgram(42 as unknown as string)).rejects.toThrow(/code must be a string/);
  });
});
