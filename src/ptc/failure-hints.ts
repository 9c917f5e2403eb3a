// One-line hints appended to a failed run's message for mistakes models make often,
// so the next attempt can fix them without guessing.
import type { FailureKind } from '../../sandbox/types.ts';

const MAX_LISTED = 40;

const MISSING_TOOL = /TypeError: tools(?:\.([\w$]+)|\[[^\]]*\]|\.(.+?)) is not a function/;

/** The tool a program's exception says it lacks (`tools.x is not a function`), or undefined. */
export function missingToolName(message: string): string | undefined {
  const match = MISSING_TOOL.exec(message);
  if (match === null) return undefined;
  const bracketed = /tools\[\s*(["'])(.*?)\1\s*\]/.exec(match[0]);
  return match[1] ?? match[2] ?? bracketed?.[2] ?? match[0].slice('TypeError: '.length);
}

export function failureHint(
  kind: FailureKind,
  message: string,
  code: string,
  toolNames: readonly string[],
): string | undefined {
  if (kind === 'compile' && /^\s*(import|export)\b/m.test(code)) {
    return 'Hint: a program is the body of an async function — there are no modules: no import or export. Use the global `tools` object.';
  }
  if (kind === 'exception') {
    if (MISSING_TOOL.test(message)) {
      const listed = toolNames
        .slice(0, MAX_LISTED)
        .map((n) => JSON.stringify(n))
        .join(', ');
      const more = toolNames.length > MAX_LISTED ? `, … (${toolNames.length - MAX_LISTED} more)` : '';
      return `Hint: no such tool is available to this program. Available tools: ${listed === '' ? '(none)' : listed + more}. Names that are not identifiers need brackets: tools["x-y"](args).`;
    }
    if (/Not supported|import\(/.test(message) && /\bimport\s*\(/.test(code)) {
      return 'Hint: dynamic import() is not available in run_code programs; use the global `tools` object.';
    }
  }
  return undefined;
}
