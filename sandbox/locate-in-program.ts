// Maps a guest stack trace back to a position in the model's own code, through the
// source map esbuild produced for the compiled program.
import { type CompiledProgram, PROGRAM_FILE_NAME } from './compiled-program.ts';
import type { RawRunOutcome } from './run-outcome.ts';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const FRAME = new RegExp(`${PROGRAM_FILE_NAME.replace('.', '\\.')}:(\\d+):(\\d+)`);

/** [generatedColumn, originalLine, originalColumn], all 0-based, sorted by generated column. */
type Segment = readonly [number, number, number];

/** Position (1-based) in the model's code of the first program frame of `stack`, if any. */
export function locateInProgram(
  program: CompiledProgram,
  stack: string | undefined,
): { line: number; column: number } | undefined {
  if (stack === undefined) return undefined;
  const match = FRAME.exec(stack);
  if (match === null) return undefined;
  const generatedLine = Number(match[1]);
  const generatedColumn = Number(match[2]);
  const original = lookup(program.sourceMap, generatedLine - 1, generatedColumn - 1);
  if (original === undefined) return undefined;
  const line = original[0]; // 0-based in the wrapped source == 1-based in the model's code
  if (line < 1 || line > program.lineCount) return undefined;
  return { line, column: original[1] + 1 };
}

/**
 * `outcome` with the position in the model's code of the first program frame of `stack`
 * (message suffixed), or undefined when the stack has none (or there is no source map).
 */
export function withLocation(
  outcome: RawRunOutcome & { readonly ok: false },
  program: CompiledProgram,
  stack: string | undefined,
): RawRunOutcome | undefined {
  const location = locateInProgram(program, stack);
  if (location === undefined) return undefined;
  return {
    ok: false,
    kind: outcome.kind,
    message: `${outcome.message} (at line ${location.line}, column ${location.column})`,
    location,
  };
}

function lookup(sourceMap: string, line: number, column: number): [number, number] | undefined {
  let mappings: unknown;
  try {
    mappings = (JSON.parse(sourceMap) as { mappings?: unknown }).mappings;
  } catch {
    return undefined;
  }
  if (typeof mappings !== 'string') return undefined;
  const segments = decodeLine(mappings, line);
  let best: Segment | undefined;
  for (const segment of segments) {
    if (segment[0] <= column) best = segment;
    else break;
  }
  best ??= segments[0];
  return best === undefined ? undefined : [best[1], best[2]];
}

/** Decodes the VLQ mappings up to `wanted` (original positions are cumulative across lines). */
function decodeLine(mappings: string, wanted: number): Segment[] {
  let originalLine = 0;
  let originalColumn = 0;
  let sourceIndex = 0;
  const groups = mappings.split(';');
  let result: Segment[] = [];
  for (let lineIndex = 0; lineIndex <= wanted && lineIndex < groups.length; lineIndex++) {
    let generatedColumn = 0;
    const current: Segment[] = [];
    for (const text of (groups[lineIndex] ?? '').split(',')) {
      if (text === '') continue;
      const fields = decodeVlq(text);
      generatedColumn += fields[0] ?? 0;
      if (fields.length >= 4) {
        sourceIndex += fields[1] ?? 0;
        originalLine += fields[2] ?? 0;
        originalColumn += fields[3] ?? 0;
        current.push([generatedColumn, originalLine, originalColumn]);
      }
    }
    if (lineIndex === wanted) result = current;
  }
  void sourceIndex;
  return result.sort((a, b) => a[0] - b[0]);
}

function decodeVlq(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64.indexOf(char);
    if (digit < 0) return values;
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}
