// What a thrown Monty error means for the run: a syntax error (kind compile), a limit
// (cpu, memory), or the program's own exception with the line it came from.
import type { FailureKind, GuestSuspension } from '../types.ts';
import type { MontyModule } from './load-monty.ts';

export interface RunFailure {
  readonly ok: false;
  readonly kind: FailureKind;
  readonly message: string;
  readonly location?: { readonly line: number; readonly column: number };
  readonly suspended?: GuestSuspension;
}

const MAX_MESSAGE_CHARS = 4_000;

// Monty 0.0.18 cannot await external functions: a tool call returns its value at once.
const AWAIT_HINT =
  'Hint: a tool call returns its value directly and Python programs call tools one at a time: no await, no asyncio.gather.';

const cut = (text: string): string =>
  text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;

/** A paused run's saved state that Monty could not load (damaged, or from another Monty version). */
export class SavedStateError extends Error {}

/** The limits a run's failure message names. */
export interface NamedLimits {
  readonly cpuTimeMs: number;
  readonly memoryMb: number;
  readonly maxAllocations?: number;
}

export function runFailure(m: MontyModule, error: unknown, limits: NamedLimits): RunFailure {
  if (error instanceof SavedStateError) {
    return {
      ok: false,
      kind: 'crash',
      message: cut(`The paused Python program's saved state could not be loaded: ${error.message}`),
    };
  }
  if (error instanceof m.MontySyntaxError) {
    return { ok: false, kind: 'compile', message: cut(error.display('type-msg')) };
  }
  if (error instanceof m.MontyRuntimeError) {
    const { typeName, message } = error.exception;
    // Monty's limits raise these and the program cannot catch them.
    if (typeName === 'TimeoutError' && message.startsWith('time limit exceeded')) {
      return {
        ok: false,
        kind: 'cpu',
        message: `The program ran longer than its CPU budget of ${limits.cpuTimeMs} ms (cpuTimeMs) without calling a tool.`,
      };
    }
    if (typeName === 'MemoryError' && message.startsWith('allocation limit exceeded')) {
      return {
        ok: false,
        kind: 'memory',
        message: `The program made more than ${limits.maxAllocations ?? 'its allowed'} heap allocations (maxAllocations): ${message}.`,
      };
    }
    if (typeName === 'MemoryError' && message.startsWith('memory limit exceeded')) {
      return {
        ok: false,
        kind: 'memory',
        message: `The program went over its memory limit of ${limits.memoryMb} MiB (memoryMb): ${message}.`,
      };
    }
    const frame = error.traceback().at(-1);
    const awaited = typeName === 'TypeError' && /awaitable|can't be awaited/.test(message);
    const text = cut(error.display('traceback')) + (awaited ? `\n${AWAIT_HINT}` : '');
    return frame === undefined
      ? { ok: false, kind: 'exception', message: text }
      : { ok: false, kind: 'exception', message: text, location: { line: frame.line, column: frame.column } };
  }
  // Not the program's doing: Monty itself failed (a value it could not convert, a bug).
  return {
    ok: false,
    kind: 'crash',
    message: cut(`The Python interpreter failed: ${error instanceof Error ? error.message : String(error)}`),
  };
}
