// One-line hints appended to a failed run's message for mistakes models make often,
// so the next attempt can fix them without guessing.
import type { FailureKind } from '../../sandbox/types.ts';

const MAX_LISTED = 40;

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
    const missing = /TypeError: tools(?:\.([\w$]+)|\[[^\]]*\]|\.(.+?)) is not a function/.exec(message);
    if (missing !== null) {
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
