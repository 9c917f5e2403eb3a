// Compiles the model's TypeScript (the body of an async function) into the script a
// run evaluates. esbuild strips types only (no type check). The model's code is hostile
// input to the compiler too: its size, the compiled size and the compile time are
// bounded, the output has no indentation (its size stays linear in the nesting depth),
// and a compiler that dies on a program is replaced (see esbuild-service.ts).
import { randomBytes } from 'node:crypto';
import type { Message, TransformFailure } from 'esbuild';
import { type CompiledProgram, PROGRAM_FILE_NAME } from './compiled-program.ts';
import type { CompileOptions, CompileResult } from './compile-result.ts';
import { CompileCache } from './compile-cache.ts';
import { boundedTransform } from './esbuild-service.ts';
import { START_GLOBAL } from './guest-protocol.ts';
import { MAX_PROGRAM_BYTES } from './limits.ts';
import { excerptAt, LINE_BREAK, refuseBeforeCompile } from './refuse-before-compile.ts';

/** Largest program accepted, in UTF-8 bytes (model programs are a few KiB); defined in limits.ts. */
export { MAX_PROGRAM_BYTES };
/** Largest compiled output (script plus source map), in characters. */
export const MAX_COMPILED_CHARS = 16 * 1_048_576;
export { type CompiledProgram, PROGRAM_FILE_NAME } from './compiled-program.ts';
export { refuseBeforeCompile } from './refuse-before-compile.ts';
export type { CompileOptions, CompileResult } from './compile-result.ts';

/** Longest a compile may take before the compiler is stopped. */
export const COMPILE_TIME_LIMIT_MS = 10_000;

/** The guest prelude defines this starter; the program script calls it once. */
export const PROGRAM_START_GLOBAL = START_GLOBAL;

// One line before the model's code, so model line = compiled-input line - 1. The body
// sits in a labeled block whose label is a fresh nonce, and the suffix breaks to that
// label: code that closes the wrapper early cannot reopen it without knowing the nonce,
// so such code is a compile error instead of running at the script's top level.
function wrap(code: string): { text: string; label: string } {
  const label = `__ptc_body_${randomBytes(8).toString('hex')}`;
  return { text: `${PROGRAM_START_GLOBAL}(async function () { ${label}: {\n${code}\n;break ${label}; } });`, label };
}
// Appended after esbuild: the script's completion value is always `undefined`, so the
// host never copies a guest object out of the isolate.
const COMPLETION = '\n;void 0;\n';

/** This process's compiled programs by source text (compile-cache.ts). */
const compiledPrograms = new CompileCache();
/** Compiles in progress, by options and source text: callers of one share its result. */
const compiling = new Map<string, Promise<CompileResult>>();

/** Compiles the program; every failure (syntax, size, compiler) is a result, never a throw. */
export async function compileProgram(code: string, options: CompileOptions = {}): Promise<CompileResult> {
  if (typeof code !== 'string') {
    throw new TypeError(`compileProgram: code must be a string, got ${code === null ? 'null' : typeof code}`);
  }
  // Size first: nothing else reads a program over it.
  if (Buffer.byteLength(code, 'utf8') > MAX_PROGRAM_BYTES) return refuseBeforeCompile(code, options, [])!;
  const lines = code.split(LINE_BREAK);
  // The bounds before the cache: a program compiled once with other options is not let through.
  const refused = refuseBeforeCompile(code, options, lines);
  if (refused !== undefined) return refused;
  // Only programs that compiled are kept, by their text alone.
  const cached = compiledPrograms.get(code);
  if (cached !== undefined) return { ok: true, program: cached };
  // The same program sent many times at once (a burst of runs) is compiled once.
  const key = `${options.deadlineMs ?? COMPILE_TIME_LIMIT_MS}\u0000${options.maxNestingDepth ?? ''}\u0000${code}`;
  const pending = compiling.get(key);
  if (pending !== undefined) return pending;
  const compiled = compileUncached(code, lines, options).finally(() => compiling.delete(key));
  compiling.set(key, compiled);
  return compiled;
}

async function compileUncached(
  code: string,
  lines: readonly string[],
  options: CompileOptions,
): Promise<CompileResult> {
  const wrapped = wrap(code);
  const result = await boundedTransform(
    wrapped.text,
    {
      loader: 'ts',
      sourcefile: PROGRAM_FILE_NAME,
      sourcemap: 'external',
      sourcesContent: false,
      target: 'es2023',
      // No indentation: with it the output grows with the square of the nesting depth.
      minifyWhitespace: true,
      logLevel: 'silent',
    },
    options.deadlineMs ?? COMPILE_TIME_LIMIT_MS,
  );
  if (!result.ok) {
    if (result.reason === 'unavailable') {
      return {
        ok: false,
        message: `The compiler could not be started (${result.message}); the program did not run. Retry later: this is the host's condition, not the program's.`,
      };
    }
    if (result.reason === 'compiler') {
      return {
        ok: false,
        message: `The compiler could not compile this program (${result.message}): simplify it, e.g. nest less deeply.`,
      };
    }
    const first = (result.error as Partial<TransformFailure>).errors?.[0];
    if (first === undefined) return { ok: false, message: 'The program could not be compiled.' };
    return describeSyntaxError(first, lines, wrapped.label);
  }
  const { code: js, map } = result.output;
  if (js.length + map.length > MAX_COMPILED_CHARS) {
    return {
      ok: false,
      message: `The compiled program is over the limit of ${MAX_COMPILED_CHARS} characters: write a shorter program.`,
    };
  }
  const program: CompiledProgram = { js: js + COMPLETION, sourceMap: map, lineCount: lines.length };
  compiledPrograms.set(code, program);
  return { ok: true, program };
}

function describeSyntaxError(error: Message, lines: readonly string[], label: string): CompileResult & { ok: false } {
  const where = error.location;
  const wrappedLine = where?.line ?? 1;
  let line = wrappedLine - 1;
  let column: number;
  let text = error.text;
  if (error.text.includes(label)) {
    text = 'the program closes the function body it runs in (is there a "}" too many?)';
  } else if (line < 1 || line > lines.length) {
    // The error is in the wrapper's suffix: something opened by the program is not closed.
    text = `unexpected end of the program (is a bracket, brace or string left open?)`;
  }
  if (line < 1 || line > lines.length) {
    line = Math.max(1, lines.length);
    column = (lines[line - 1] ?? '').length + 1;
  } else {
    // esbuild columns count UTF-8 bytes from 0; report UTF-16 characters from 1.
    const lineText = lines[line - 1] ?? '';
    column =
      Buffer.from(lineText, 'utf8')
        .subarray(0, where?.column ?? 0)
        .toString('utf8').length + 1;
  }
  const source = lines[line - 1] ?? '';
  const excerpt = excerptAt(source, line, column);
  return {
    ok: false,
    message: `Syntax error at line ${line}, column ${column}: ${text}\n${excerpt}`,
    location: { line, column },
  };
}
