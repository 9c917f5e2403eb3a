// What compileProgram takes and gives, apart from the compiler: the checks made before
// compiling (refuse-before-compile.ts) answer in the same shape without loading it.
import type { CompiledProgram } from './compiled-program.ts';

export type CompileResult =
  | { readonly ok: true; readonly program: CompiledProgram }
  | {
      readonly ok: false;
      readonly message: string;
      /** 1-based, in the model's own code (absent when the program as a whole was refused). */
      readonly location?: { readonly line: number; readonly column: number };
    };

export interface CompileOptions {
  /** Longest the compile may take. @default COMPILE_TIME_LIMIT_MS */
  readonly deadlineMs?: number;
  /** Levels of nesting refused before the compiler runs (`Infinity` hands everything to it). @default MAX_NESTING_DEPTH */
  readonly maxNestingDepth?: number;
}
