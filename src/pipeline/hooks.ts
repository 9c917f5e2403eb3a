// The four pipeline hooks. pre/execute/post are waterfalls: the first registered
// handler runs outermost and reaches the next through `next()`.
import type { PostDecision, PreDecision } from './decisions.ts';
import type { ToolExecution } from './tool-execution.ts';
import type { ToolResult } from './tool-result.ts';

export type PreExecuteHandler = (
  exec: ToolExecution,
  next: () => Promise<PreDecision>,
) => PreDecision | Promise<PreDecision>;
/** Around dispatch: `next()` runs the body and returns its canonical result. May swap `exec.signal`. */
export type ExecuteHandler = (exec: ToolExecution, next: () => Promise<ToolResult>) => ToolResult | Promise<ToolResult>;
export type PostExecuteHandler = (
  exec: ToolExecution,
  outcome: ToolResult,
  next: () => Promise<PostDecision>,
) => PostDecision | Promise<PostDecision>;
/**
 * Observers of final results, with the (finished, frozen) execution that produced them:
 * enough to present the call live (`presentExecution(rt, exec, result)`) and to place a
 * nested call under its parent (`exec.parentCallId`). A throw or rejection does not
 * change the outcome.
 */
export type ResultObserver = (result: ToolResult, exec: ToolExecution) => void | Promise<void>;

export interface HookMap {
  'tools/pre-execute': PreExecuteHandler;
  'tools/execute': ExecuteHandler;
  'tools/post-execute': PostExecuteHandler;
  'tools/result': ResultObserver;
}
export type HookName = keyof HookMap;

const NO_HANDLERS: readonly never[] = Object.freeze([]);

export class Hooks {
  readonly #lists: { [K in HookName]: HookMap[K][] } = {
    'tools/pre-execute': [],
    'tools/execute': [],
    'tools/post-execute': [],
    'tools/result': [],
  };

  // Handlers that run only for the calls their predicate accepts (the runtime's own
  // timeout policy: a pass-through for tools without a timeoutMs).
  readonly #conditions = new WeakMap<object, (exec: ToolExecution) => boolean>();
  #conditional = 0;

  /** `appliesTo`: the handler is left out of the chain of a call it would only pass through (see `list`). */
  on<K extends HookName>(name: K, handler: HookMap[K], appliesTo?: (exec: ToolExecution) => boolean): () => void {
    const list = this.#lists[name] as HookMap[K][] | undefined;
    if (list === undefined)
      throw new TypeError(`rt.on: unknown hook "${String(name)}" (known: ${Object.keys(this.#lists).join(', ')})`);
    if (typeof handler !== 'function') throw new TypeError(`rt.on("${name}"): handler must be a function`);
    // Wrap so the same function registered twice is disposed independently.
    const entry = ((...args: unknown[]) => (handler as (...a: unknown[]) => unknown)(...args)) as HookMap[K];
    Object.defineProperty(entry, 'name', { value: handler.name }); // errors name the handler
    list.push(entry);
    if (appliesTo !== undefined) {
      this.#conditions.set(entry, appliesTo);
      this.#conditional += 1;
    }
    return () => {
      const i = list.indexOf(entry);
      if (i >= 0) {
        list.splice(i, 1);
        if (this.#conditions.delete(entry)) this.#conditional -= 1;
      }
    };
  }

  /**
   * A snapshot of the handlers, so a disposal mid-call does not shift the chain; given
   * the call, without the handlers whose predicate leaves it out. With none it is one
   * shared empty array: the common case allocates nothing.
   */
  list<K extends HookName>(name: K, exec?: ToolExecution): readonly HookMap[K][] {
    const list = this.#lists[name] as HookMap[K][];
    if (list.length === 0) return NO_HANDLERS;
    if (exec === undefined || this.#conditional === 0) return [...list];
    // A loop, not filter(): no closure per call, and no array until a handler is kept
    // after one was left out (a lone conditional wrapper left out allocates nothing).
    let leftOut = false;
    let chain: HookMap[K][] | undefined;
    for (let i = 0; i < list.length; i += 1) {
      const entry = list[i]!;
      if (this.#conditions.get(entry)?.(exec) === false) {
        if (!leftOut && i > 0) chain = list.slice(0, i);
        leftOut = true;
      } else if (leftOut) (chain ??= []).push(entry);
    }
    if (!leftOut) return [...list];
    return chain === undefined ? NO_HANDLERS : chain;
  }
}

/**
 * Runs a waterfall: handler i gets a `next` that runs handler i+1, ending in `last`.
 * Each `next` runs the rest of the chain at most once, and only while the chain is
 * running: a second call (a retry loop, a stray double await) or a late one would run
 * the tool body again or after the call finished. Such a call rejects, and the whole
 * chain fails with that error even when the handler swallows it (as Hono's compose
 * does: "next() called multiple times").
 */
export async function waterfall<H extends (...args: never[]) => unknown, R>(
  handlers: readonly H[],
  invoke: (handler: H, next: () => Promise<R>) => R | Promise<R>,
  last: () => Promise<R>,
): Promise<R> {
  let misuse: Error | undefined;
  let finished = false;
  const step = async (i: number): Promise<R> => {
    const handler = handlers[i];
    if (handler === undefined) return last();
    let called = false;
    const next = (): Promise<R> => {
      if (finished || called) {
        const who =
          handler.name === ''
            ? `handler #${i + 1} (anonymous: give it a function name to see it here)`
            : `handler ${JSON.stringify(handler.name)}`;
        const error = new Error(
          finished
            ? `${who} called next() after the chain finished; call next() before the handler returns or resolves`
            : `${who} called next() more than once; next() runs the rest of the chain and the tool body, so call it once and reuse its result`,
        );
        misuse ??= error;
        const rejected = Promise.reject(error);
        rejected.catch(() => {}); // the chain reports it; a handler that ignores it must not crash the process
        return rejected;
      }
      called = true;
      return step(i + 1);
    };
    return invoke(handler, next);
  };
  try {
    const result = await step(0);
    if (misuse !== undefined) throw misuse;
    return result;
  } finally {
    finished = true;
  }
}
