// What a compiled program is, apart from how it is compiled: the sandbox process needs
// this shape and the file name, never the compiler (esbuild stays in the host).

/** The file name a program's positions refer to (stack traces, compile errors). */
export const PROGRAM_FILE_NAME = 'program.ts';

export interface CompiledProgram {
  /** JavaScript to evaluate in the guest context (after the prelude). */
  readonly js: string;
  /** Source map (v3 JSON) from `js` to the wrapped source; see `locateInProgram`. */
  readonly sourceMap: string;
  /** Line count of the model's code, to clamp positions that fall in the wrapper. */
  readonly lineCount: number;
}
