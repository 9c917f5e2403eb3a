// Compiles the model's TypeScript (the body of an async function) into the script a
// run evaluates. esbuild strips types only (no type check); its async `transform`
// keeps one esbuild service alive for the whole process.
import { randomBytes } from 'node:crypto';
import { transform, type Message, type TransformFailure } from 'esbuild';

/** The guest prelude defines this starter; the program script calls it once. */
export const PROGRAM_START_GLOBAL = '__ptc_start';
/** File name of the program in guest stack traces (mapped back through the source map). */
export const PROGRAM_FILE_NAME = 'program.ts';

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

export interface CompiledProgram {
  /** JavaScript to evaluate in the guest context (after the prelude). */
  readonly js: string;
  /** Source map (v3 JSON) from `js` to the wrapped source; see `locateInProgram`. */
  readonly sourceMap: string;
  /** Line count of the model's code, to clamp positions that fall in the wrapper. */
  readonly lineCount: number;
}

export type CompileResult =
  | { readonly ok: true; readonly program: CompiledProgram }
  | {
      readonly ok: false;
      readonly message: string;
      /** 1-based, in the model's own code. */
      readonly location: { readonly line: number; readonly column: number };
    };

const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

export async function compileProgram(code: string): Promise<CompileResult> {
  if (typeof code !== 'string') {
    throw new TypeError(`compileProgram: code must be a string, got ${code === null ? 'null' : typeof code}`);
  }
  const lines = code.split(LINE_BREAK);
  const wrapped = wrap(code);
  try {
    const output = await transform(wrapped.text, {
      loader: 'ts',
      sourcefile: PROGRAM_FILE_NAME,
      sourcemap: 'external',
      sourcesContent: false,
      target: 'es2023',
      logLevel: 'silent',
    });
    return { ok: true, program: { js: output.code + COMPLETION, sourceMap: output.map, lineCount: lines.length } };
  } catch (error) {
    const first = (error as Partial<TransformFailure>).errors?.[0];
    if (first === undefined) throw error; // not a syntax error: esbuild itself failed
    return describeSyntaxError(first, lines, wrapped.label);
  }
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
    column = Buffer.from(lineText, 'utf8').subarray(0, where?.column ?? 0).toString('utf8').length + 1;
  }
  const source = lines[line - 1] ?? '';
  const excerpt = excerptAt(source, line, column);
  return {
    ok: false,
    message: `Syntax error at line ${line}, column ${column}: ${text}\n${excerpt}`,
    location: { line, column },
  };
}

const EXCERPT_WIDTH = 120;

function excerptAt(source: string, line: number, column: number): string {
  let start = 0;
  if (source.length > EXCERPT_WIDTH) start = Math.max(0, Math.min(column - EXCERPT_WIDTH / 2, source.length - EXCERPT_WIDTH));
  const shown = source.slice(start, start + EXCERPT_WIDTH);
  const gutter = `${line} | `;
  const caret = ' '.repeat(gutter.length - 2) + '| ' + ' '.repeat(Math.max(0, column - 1 - start)) + '^';
  return `${gutter}${shown}\n${caret}`;
}
