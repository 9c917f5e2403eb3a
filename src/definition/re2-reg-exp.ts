// The regular-expression engine ajv uses for `pattern` and `patternProperties`: RE2
// (re2js), whose matching time is linear in the input. JavaScript's own RegExp
// backtracks, so a plain schema pattern such as `[0-9]+-[0-9]+` takes seconds on a
// 90 KB argument and hours at the argument size limit — on the host's event loop.
// RE2 has no lookaround and no backreferences: such a pattern is refused when the
// schema is compiled (a clear definition error), never run with a backtracking engine.
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** Compiles a JSON Schema (ECMA-262) pattern for RE2; ajv passes its flags ("u", or ""). */
function compileRe2(pattern: string, flags: string): RegExpLike {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new SyntaxError(
      `pattern ${JSON.stringify(pattern)} cannot run in linear time (${(error as Error).message}); ` +
        'lookaround and backreferences are not supported: rewrite the pattern without them',
    );
  }
  const like: RegExpLike & { toString(): string } = {
    // Finds a match anywhere, as JSON Schema's unanchored `pattern` requires.
    test: (input: string) => compiled.test(input),
    // ajv keys compiled patterns by this text: it must differ per pattern.
    toString: () => `/${pattern}/${flags}`,
  };
  return like;
}

/** For ajv's `code.regExp` option (`code` names it in generated standalone code). */
export const re2RegExp: RegExpEngine = Object.assign(compileRe2, { code: 'ptc-runtime/re2-reg-exp' });
