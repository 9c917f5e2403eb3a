// The timeout policy: an around-dispatch wrapper that enforces each definition's
// `timeoutMs` by swapping in a deadline signal. When the deadline fires the call
// fails with TOOL_TIMEOUT, but only after the body has really settled: the wrapper
// waits for it, for a bounded grace period. A body that ignores its signal past the
// grace is reported (`onUnsettled`, `error.info.bodySettled: false`), not leaked
// silently. The caller's own cancellation always wins over the deadline.
import type { Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { ExecuteHandler } from '../pipeline/hooks.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { AgentRef, Dispose } from '../registry/tool-registry.ts';
import { DEFAULT_GRACE_MS, reportUnsettled, warnUnsettled, type UnsettledBody } from '../pipeline/unsettled-body.ts';

export { DEFAULT_GRACE_MS, type UnsettledBody };

/** The part of a runtime the policy needs. */
export interface TimeoutPolicyHost {
  on(name: 'tools/execute', handler: ExecuteHandler): Dispose;
  tool(name: string, options?: { readonly agent?: AgentRef }): Tool | undefined;
}

export interface TimeoutPolicyOptions {
  /**
   * How long to wait, once the deadline fired, for the body to settle.
   * @default 1000
   */
  readonly graceMs?: number;
  /**
   * A body still running `graceMs` after its deadline (it ignores its signal). The call
   * has already failed with TOOL_TIMEOUT; the body may still have side effects.
   * Default: a process warning.
   */
  readonly onUnsettled?: (report: UnsettledBody) => void;
}

/** setTimeout's ceiling; a longer timeout would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type Outcome = { readonly result: ToolResult } | { readonly error: unknown };

/** Installs the policy on `rt`; the returned function removes it. */
export function installTimeoutPolicy(rt: TimeoutPolicyHost, options: TimeoutPolicyOptions = {}): Dispose {
  return rt.on('tools/execute', createTimeoutPolicy(rt, options).handler);
}

/** The policy's wrapper, and whether it does anything for a call (its tool declares a `timeoutMs`). */
export interface TimeoutPolicy {
  readonly handler: ExecuteHandler;
  applies(exec: ToolExecution): boolean;
}

/** The policy without installing it: a runtime that owns it skips the wrapper for calls it does not apply to. */
export function createTimeoutPolicy(
  rt: Pick<TimeoutPolicyHost, 'tool'>,
  options: TimeoutPolicyOptions = {},
): TimeoutPolicy {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0) {
    throw new TypeError(
      `installTimeoutPolicy: expected \`graceMs\` to be a finite number >= 0, got ${String(graceMs)}`,
    );
  }
  const onUnsettled = options.onUnsettled ?? warnUnsettled;
  if (typeof onUnsettled !== 'function') throw new TypeError('installTimeoutPolicy: onUnsettled must be a function');

  const handler: ExecuteHandler = async (exec, next) => {
    const timeoutMs = timeoutOf(rt, exec);
    if (timeoutMs === undefined) return next();
    const deadline = new AbortController();
    // Keep any signal an outer wrapper set; the registry fuses in the caller's at body start.
    exec.signal = AbortSignal.any([exec.signal, deadline.signal]);
    const body: Promise<Outcome> = next().then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const first = await raceTimer(body, Math.min(timeoutMs, MAX_TIMER_MS));
    if (first !== 'timer') return unwrap(first);

    deadline.abort(new DOMException(`tool "${exec.name}" exceeded its ${timeoutMs} ms timeout`, 'TimeoutError'));
    const late = await raceTimer(body, graceMs);
    const bodySettled = late !== 'timer';
    if (!bodySettled) {
      reportUnsettled(onUnsettled, {
        callId: exec.callId,
        name: exec.name,
        agent: exec.agent,
        reason: 'timeout',
        timeoutMs,
        graceMs,
        settled: body.then(() => {}),
      });
    }
    if (exec.callerSignal.aborted) {
      // The caller cancelled: that, not the deadline, is the outcome.
      if (bodySettled) return unwrap(late);
      return failure(exec, ERROR_CODES.ABORTED, 'tool call aborted', { bodySettled });
    }
    const message = bodySettled
      ? `tool "${exec.name}" timed out after ${timeoutMs} ms`
      : `tool "${exec.name}" timed out after ${timeoutMs} ms; it ignored its abort signal and was still running ${graceMs} ms later`;
    return failure(exec, ERROR_CODES.TOOL_TIMEOUT, message, { timeoutMs, bodySettled });
  };
  return { handler, applies: (exec) => timeoutOf(rt, exec) !== undefined };
}

function timeoutOf(rt: Pick<TimeoutPolicyHost, 'tool'>, exec: ToolExecution): number | undefined {
  let tool: Tool | undefined;
  try {
    tool = rt.tool(exec.name, exec.agent === undefined ? {} : { agent: exec.agent });
  } catch {
    return undefined;
  }
  const t = tool?.timeoutMs;
  return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : undefined;
}

async function raceTimer(body: Promise<Outcome>, ms: number): Promise<Outcome | 'timer'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fired = new Promise<'timer'>((resolve) => {
    timer = setTimeout(() => resolve('timer'), ms);
  });
  try {
    return await Promise.race([body, fired]);
  } finally {
    clearTimeout(timer);
  }
}

function unwrap(outcome: Outcome): ToolResult {
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

/** A non-canonical failure: the pipeline normalizes it (code, message, info). */
function failure(
  exec: ToolExecution,
  code: string,
  message: string,
  info: { readonly [key: string]: number | boolean },
): ToolResult {
  return {
    callId: exec.callId,
    name: exec.name,
    isError: true,
    content: [{ type: 'text', text: `Error: ${message}` }],
    error: { code, message, info },
  };
}
