// The warm-up run that makes the prelude's code cache (isolate-pool.ts): once per
// process, a run of our own small program in a throwaway isolate goes through what
// nearly every run does (configure, a tool call blocked on and answered, a log line,
// the result; its text names URL, so the built-ins the URL library reads are captured as
// for such a program), so the prelude functions on that path are compiled once here and come
// from the code cache in every later isolate instead of being compiled in each run. Its
// second call is released unanswered and delivered later, as a call is whenever other
// runs are in flight: the delivery path was compiled in each such run (~0.1 ms; bench/README
// "Start CPU per run (ninth stop)").
// Nothing of any model's program is involved: the code cache holds only our own code.
import type { CallDispatcher } from './call-bridge.ts';
import { START_GLOBAL } from './guest-protocol.ts';
import type { IsolateForRun } from './isolate-for-run.ts';
import { startIsolateRun } from './isolate-run.ts';
import { DEFAULT_LIMITS } from './limits.ts';

const WARM_UP_TOOL = 'warm_up';
/** Compiled form of the warm-up program (what compile-program.ts makes of a body, written out). */
const WARM_UP_JS = `${START_GLOBAL}(async function () { /* URL */ const value = await tools.${WARM_UP_TOOL}({ n: 1 }); const later = await tools.${WARM_UP_TOOL}({ n: 2 }); console.log('warm', value, later); return { value, list: [1, 'a', null] }; });\n;void 0;\n`;

/** Runs the warm-up program in `prepared` (which it does not dispose); true if it completed. */
export async function warmUpRun(prepared: IsolateForRun): Promise<boolean> {
  let blocked = 0;
  const dispatcher: CallDispatcher = {
    call: async () => ({ ok: true, valueJson: '{"n":1}' }),
    // The first call is answered while the guest blocks on it; the second is released
    // (a promise: its outcome crosses later through the prelude's deliver).
    callBlocking: () => {
      blocked += 1;
      const outcome = { ok: true, valueJson: '{"n":1}' } as const;
      return blocked === 1 ? outcome : Promise.resolve(outcome);
    },
    cancel: () => undefined,
    close: () => undefined,
  };
  const run = startIsolateRun({
    prepared,
    program: { js: WARM_UP_JS, sourceMap: '', lineCount: 1 },
    toolNames: [WARM_UP_TOOL],
    limits: { ...DEFAULT_LIMITS, wallTimeMs: 10_000 },
    determinism: { seed: 'warm-up', clockStartMs: 0 },
    dispatcher,
    logs: { add: () => undefined, markTruncated: () => undefined },
    // Not a run of the sandbox's: its call is not counted with theirs.
    blockingStats: { answered: 0, released: 0 },
  });
  const outcome = await run.outcome;
  return outcome.ok;
}
