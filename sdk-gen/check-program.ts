import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type TypeScript from 'typescript';
import { GUEST_GLOBALS_DECLARATIONS } from './guest-globals-types.ts';

/** One TypeScript diagnostic, positioned in the model's program text. */
export interface ProgramDiagnostic {
  /** 1-based line in the program (line breaks as TypeScript counts them). */
  readonly line: number;
  /** 1-based column in UTF-16 code units. */
  readonly column: number;
  readonly message: string;
  /** TypeScript's diagnostic code, e.g. 2345 for a mistyped argument. */
  readonly code: number;
}

// Paths of the in-memory files; the lib files keep their real paths.
const SDK_FILE = '/ptc/sdk.ts';
const GLOBALS_FILE = '/ptc/globals.d.ts';
const PROGRAM_FILE = '/ptc/program.ts';
const WRAPPER_HEAD = 'async function __ptc_main__() {\n';
const WRAPPER_TAIL = '\n}\n';
// The sandbox's console and web-standard globals, and nothing else beyond lib ES2023 and the SDK.
const GLOBALS_TEXT = GUEST_GLOBALS_DECLARATIONS;
// Line breaks as TypeScript's scanner counts them.
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/;

interface Checker {
  readonly ts: typeof TypeScript;
  readonly options: TypeScript.CompilerOptions;
  readonly libDir: string;
  /** Parsed lib files, shared by every check: parsing them is the expensive part. */
  readonly libFiles: Map<string, TypeScript.SourceFile | undefined>;
  readonly globals: TypeScript.SourceFile;
  /** SDK texts already known to type-check, with their parsed file. */
  readonly sdks: Map<string, TypeScript.SourceFile>;
}

let checker: Checker | undefined;

// TypeScript is loaded on first use, so importing sdk-gen for generateSdk stays cheap.
function getChecker(): Checker {
  if (checker !== undefined) return checker;
  const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
  const options: TypeScript.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    types: [],
    strict: true,
    // A caught value is \`any\`, as a \`.catch(e => …)\` callback's already is: the SDK
    // promises that a failed call rejects with a ToolCallError, so \`catch (e) { e.code }\`
    // must check. Narrowing with \`e instanceof ToolCallError\` still works.
    useUnknownInCatchVariables: false,
    noEmit: true,
    skipLibCheck: true,
    noResolve: true,
  };
  const libDir = path.dirname(ts.getDefaultLibFilePath(options));
  const globals = ts.createSourceFile(GLOBALS_FILE, GLOBALS_TEXT, ts.ScriptTarget.ES2023, true);
  checker = { ts, options, libDir, libFiles: new Map(), globals, sdks: new Map() };
  return checker;
}

function libFile(state: Checker, fileName: string): TypeScript.SourceFile | undefined {
  if (!state.libFiles.has(fileName)) {
    const parsed = existsSync(fileName)
      ? state.ts.createSourceFile(fileName, readFileSync(fileName, 'utf8'), state.ts.ScriptTarget.ES2023, true)
      : undefined;
    state.libFiles.set(fileName, parsed);
  }
  return state.libFiles.get(fileName);
}

function createProgram(state: Checker, sdk: TypeScript.SourceFile, program: TypeScript.SourceFile): TypeScript.Program {
  const { ts, options, libDir } = state;
  const ours = new Map([
    [SDK_FILE, sdk],
    [GLOBALS_FILE, state.globals],
    [PROGRAM_FILE, program],
  ]);
  const host: TypeScript.CompilerHost = {
    getSourceFile: (fileName) => ours.get(fileName) ?? libFile(state, fileName),
    getDefaultLibFileName: () => path.join(libDir, 'lib.es2023.d.ts'),
    getDefaultLibLocation: () => libDir,
    fileExists: (fileName) => ours.has(fileName) || libFile(state, fileName) !== undefined,
    readFile: (fileName) => ours.get(fileName)?.text ?? libFile(state, fileName)?.text,
    writeFile: () => undefined,
    getCurrentDirectory: () => '/ptc',
    getDirectories: () => [],
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
  };
  return ts.createProgram({ rootNames: [...ours.keys()], options, host });
}

function errorsOf(program: TypeScript.Program, file: TypeScript.SourceFile): readonly TypeScript.Diagnostic[] {
  const syntactic = program.getSyntacticDiagnostics(file);
  return syntactic.length > 0 ? syntactic : program.getSemanticDiagnostics(file);
}

function format(ts: typeof TypeScript, diagnostic: TypeScript.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${line + 1}:${character + 1} ${message}`;
}

/**
 * Type-checks a model program against an SDK from `generateSdk`, the way the
 * sandbox will run it: the program is the body of an async function (top-level
 * `await` and `return` allowed) with globals `tools` and `ToolCallError` from the
 * SDK, a `console` with log/info/warn/error/debug, and lib ES2023 — nothing of
 * Node or the DOM. Compiler options: `strict`, except that a `catch` variable is
 * `any` (not `unknown`), so a program can read `e.code` of a ToolCallError.
 *
 * Returns the program's syntax errors if it has any, else its type errors, sorted
 * by position; `[]` means it type-checks. Throws if the SDK text itself does not
 * type-check (it is then not an SDK from `generateSdk`).
 *
 * TypeScript is loaded and the lib files parsed on the first call (the slow one);
 * later calls reuse them.
 */
export function checkProgram(sdk: string, program: string): ProgramDiagnostic[] {
  const state = getChecker();
  const { ts } = state;
  const knownSdk = state.sdks.get(sdk);
  const sdkFile = knownSdk ?? ts.createSourceFile(SDK_FILE, sdk, ts.ScriptTarget.ES2023, true);
  const programFile = ts.createSourceFile(
    PROGRAM_FILE,
    `${WRAPPER_HEAD}${program}${WRAPPER_TAIL}`,
    ts.ScriptTarget.ES2023,
    true,
  );
  const built = createProgram(state, sdkFile, programFile);

  if (knownSdk === undefined) {
    const sdkErrors = errorsOf(built, sdkFile);
    if (sdkErrors.length > 0) {
      const first = sdkErrors[0];
      throw new Error(
        `checkProgram: the SDK text has ${sdkErrors.length} TypeScript error(s), first at ${first === undefined ? '?' : format(ts, first)}; pass the text generateSdk returned`,
      );
    }
    // A handful of SDKs at a time is the expected use; keep the cache small.
    if (state.sdks.size >= 8) state.sdks.clear();
    state.sdks.set(sdk, sdkFile);
  }

  const lines = program.split(LINE_BREAK);
  const lastLine = lines.length;
  return errorsOf(built, programFile)
    .map((diagnostic) => {
      const start = diagnostic.start ?? 0;
      const position = programFile.getLineAndCharacterOfPosition(start);
      // The wrapper's head is file line 0, so file line n is program line n; clamp
      // positions that fall in the wrapper onto the program's first/last line.
      let line = position.line;
      let column = position.character + 1;
      if (line < 1) {
        line = 1;
        column = 1;
      } else if (line > lastLine) {
        line = lastLine;
        column = (lines[lastLine - 1]?.length ?? 0) + 1;
      }
      return {
        line,
        column,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
        code: diagnostic.code,
      };
    })
    .sort((a, b) => a.line - b.line || a.column - b.column || a.code - b.code);
}
