// A preview: the program runs with its reads live and its writes not run. Each write is
// checked against its schema and answered with the tool's `preview()` stand-in, or with
// a value marked as a preview (`{ $preview: true, tool, seq }`); it joins the plan. A
// pivot write joins the plan and stops the program there (the plan is partial). Every
// call is recorded with what the program got, so the commit can answer it the same way.
import { randomUUID } from 'node:crypto';
import type { Tool } from '../definition/tool.ts';
import { effectOf } from '../definition/tool-effect.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolErrorInfo, ToolResult } from '../pipeline/tool-result.ts';
import { answeredResult, outcomeOf, type PlanHook, type PlanRoute } from './plan-hook.ts';
import type { PlanCall, RecordedOutcome } from './plan-record.ts';

export interface PreviewContext {
  /** The run_code call's id: nested callIds are `<callId>:ptc:<seq>`. */
  readonly callId: string;
  readonly agent: string | undefined;
  readonly planId: string;
  /** The tool a name resolves to for the agent (undefined: the pipeline will refuse it). */
  lookup(name: string): Tool | undefined;
  /** What the write's policy would refuse it with (undefined: it would run). */
  refusalOf(seq: number, name: string, args: JsonValue): Promise<ToolErrorInfo | undefined>;
}

/** A preview's hook and, when the program is done, its record. */
export class PreviewRecorder implements PlanHook {
  readonly determinism = { seed: randomUUID(), clockStartMs: Date.now() };
  readonly #context: PreviewContext;
  readonly #calls = new Map<number, PlanCall>();
  /** Writes being answered (their kind is known before they settle). */
  readonly #kinds = new Map<number, PlanCall['kind']>();
  readonly #titles = new Map<number, string>();
  partial = false;

  constructor(context: PreviewContext) {
    this.#context = context;
  }

  /** The recorded calls in program order. */
  get calls(): PlanCall[] {
    return [...this.#calls.values()].sort((a, b) => a.seq - b.seq);
  }

  route(seq: number, name: string, args: JsonValue, signal: AbortSignal): PlanRoute {
    const tool = this.#context.lookup(name);
    if (tool === undefined || effectOf(tool) === 'read') return { kind: 'live' };
    const callId = `${this.#context.callId}:ptc:${seq}`;
    const issues = tool.argIssues(args);
    if (issues.length > 0) {
      this.#kinds.set(seq, 'refused');
      const detail = issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ');
      return {
        kind: 'answer',
        result: answeredResult(callId, name, {
          ok: false,
          code: ERROR_CODES.INVALID_ARGS,
          message: `tools.${name}: invalid arguments: ${detail}`,
        }),
      };
    }
    const title = titleOf(tool, args);
    if (title !== undefined) this.#titles.set(seq, title);
    this.#kinds.set(seq, 'write');
    // Its policy is not asked here: the stop must come before any later call of the program
    // is routed. The commit asks it (a refusal there fails the commit and undoes what ran).
    if (tool.pivot === true) {
      this.partial = true;
      const message = `tools.${name} is a pivot write: the program needs its real result to go on, so the preview stops here and the plan is partial.`;
      this.#record(seq, name, args, 'write', { ok: false, code: 'PLAN_PIVOT', message }, Date.now());
      return { kind: 'stop', stop: { kind: 'pivot', code: 'PLAN_PIVOT', message } };
    }
    return { kind: 'answer', result: this.#planned(tool, callId, seq, args, signal) };
  }

  /** The write's policy first (a refusal is its outcome, and it stays out of the plan), then its stand-in. */
  async #planned(tool: Tool, callId: string, seq: number, args: JsonValue, signal: AbortSignal): Promise<ToolResult> {
    const name = tool.name;
    const refusal = await this.#context.refusalOf(seq, name, args);
    if (refusal !== undefined) {
      this.#kinds.set(seq, 'refused');
      return answeredResult(callId, name, { ok: false, code: refusal.code, message: refusal.message });
    }
    const preview = tool.preview;
    const standIn: RecordedOutcome = { ok: true, value: { $preview: true, tool: name, seq } };
    if (preview === undefined) return answeredResult(callId, name, standIn);
    const exec = {
      planId: this.#context.planId,
      seq,
      agent: this.#context.agent,
      idempotencyKey: `run:${this.#context.planId}:${seq}`,
      signal,
    };
    return this.#previewed(tool, callId, seq, preview(args, exec));
  }

  async #previewed(tool: Tool, callId: string, seq: number, value: Promise<unknown>): Promise<ToolResult> {
    const name = tool.name;
    let outcome: RecordedOutcome;
    try {
      const json = JSON.parse(JSON.stringify((await value) ?? null)) as JsonValue;
      const issues = tool.outputIssues(json);
      outcome =
        issues.length === 0
          ? { ok: true, value: json }
          : {
              ok: false,
              code: ERROR_CODES.INVALID_TOOL_OUTPUT,
              message: `tools.${name}'s preview() gave a value that does not fit its output schema: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`,
            };
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      outcome = {
        ok: false,
        code: typeof code === 'string' ? code : ERROR_CODES.TOOL_ERROR,
        message: `tools.${name}'s preview() failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    // A write whose preview failed is not in the plan: the commit answers it with the same failure.
    if (!outcome.ok) this.#kinds.set(seq, 'refused');
    return answeredResult(callId, name, outcome);
  }

  settled(seq: number, name: string, args: JsonValue, result: ToolResult): { at: number } {
    const at = Date.now();
    this.#record(seq, name, args, this.#kinds.get(seq) ?? 'read', outcomeOf(result), at);
    return { at };
  }

  #record(seq: number, name: string, args: JsonValue, kind: PlanCall['kind'], outcome: RecordedOutcome, at: number) {
    const title = kind === 'write' ? this.#titles.get(seq) : undefined;
    this.#calls.set(seq, { seq, name, arguments: args, kind, outcome, at, ...(title === undefined ? {} : { title }) });
  }
}

/** A one-line title from the tool's `presentCall`, when it gives a string. */
function titleOf(tool: Tool, args: JsonValue): string | undefined {
  try {
    const shown = tool.presentCall(args);
    return typeof shown === 'string' ? shown.slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}
