// A commit: the previewed program runs again against its plan. Every call is checked
// against the record at its place (same tool, same canonical arguments) before anything
// runs: reads and refusals are answered from the record, planned writes run for real
// (idempotency key `run:<planId>:<seq>`), and any other call stops the program before it
// runs (PLAN_MISMATCH, naming the first difference). A write that fails stops it too
// (COMMIT_FAILED); the writes applied so far are then undone (undo.ts).
import { callDigest } from '../json/canonical-json.ts';
import type { JsonValue } from '../json/json-value.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { PLAN_ERROR_CODES } from '../errors/plan-error.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { answeredResult, type PlanHook, type PlanRoute, type PlanStop } from './plan-hook.ts';
import { shownCall, type PlanCall, type PlanRecord } from './plan-record.ts';

/** Error codes of a dispatched call that was cut off, not refused: its outcome is unknown. */
const CUT_OFF: ReadonlySet<string> = new Set([ERROR_CODES.ABORTED, ERROR_CODES.TOOL_TIMEOUT, ERROR_CODES.CANCELLED]);

/** A write the commit applied: what undo needs. */
export interface AppliedWrite {
  readonly seq: number;
  readonly name: string;
  readonly arguments: JsonValue;
  readonly result: JsonValue;
}

/** The commit's hook: checks each call against the plan and keeps the writes it applied. */
export class CommitRunner implements PlanHook {
  readonly determinism: { readonly seed: string; readonly clockStartMs: number };
  readonly #record: PlanRecord;
  readonly #callId: string;
  readonly #calls: ReadonlyMap<number, PlanCall>;
  readonly #applied = new Map<number, AppliedWrite>();
  /** Writes sent to run (applied or not): a plan write never sent is a difference too. */
  readonly #sent = new Set<number>();
  /** Writes that settled as failures (not applied). */
  readonly #failed = new Set<number>();
  /** The last call of a partial plan (its pivot): the commit ends after it. */
  readonly #pivotSeq: number | undefined;

  constructor(record: PlanRecord, callId: string) {
    this.#record = record;
    this.#callId = callId;
    this.determinism = { seed: record.seed, clockStartMs: record.clockStartMs };
    this.#calls = new Map(record.calls.map((c) => [c.seq, c]));
    this.#pivotSeq = record.partial ? record.calls.at(-1)?.seq : undefined;
  }

  /** The writes applied, in plan order. */
  get applied(): AppliedWrite[] {
    return [...this.#applied.values()].sort((a, b) => a.seq - b.seq);
  }

  /**
   * Writes sent to run that had not settled when the commit stopped (their body may still
   * apply, e.g. one that does not heed its abort): neither applied nor failed as far as the
   * commit knows, so they cannot be undone and are reported as such.
   */
  get unsettled(): PlanCall[] {
    return [...this.#sent]
      .filter((seq) => !this.#applied.has(seq) && !this.#failed.has(seq))
      .sort((a, b) => a - b)
      .flatMap((seq) => {
        const planned = this.#calls.get(seq);
        return planned === undefined ? [] : [planned];
      });
  }

  route(seq: number, name: string, args: JsonValue): PlanRoute {
    const planned = this.#calls.get(seq);
    const mismatch = (message: string): PlanRoute => ({
      kind: 'stop',
      stop: { kind: 'plan-mismatch', code: PLAN_ERROR_CODES.PLAN_MISMATCH, message },
    });
    const writes = this.#record.calls.filter((c) => c.kind === 'write').length;
    if (planned === undefined)
      return mismatch(
        `call #${seq} ${shownCall(name, args)} is not in the plan (the preview made ${this.#record.calls.length} calls, ${writes} of them writes): it did not run and the commit stopped there.`,
      );
    if (callDigest(name, args) !== callDigest(planned.name, planned.arguments))
      return mismatch(
        `call #${seq} differs from the plan: the program called ${shownCall(name, args)} where the plan has ${shownCall(planned.name, planned.arguments)}${planned.kind === 'write' ? ' (a planned write)' : ''}. It did not run and the commit stopped there.`,
      );
    // A read made after a write has run sees that write: it runs live (the record holds what
    // it answered before any write ran). The writes after it must still match the plan.
    if (planned.kind === 'read' && this.#sent.size > 0) return { kind: 'live' };
    if (planned.kind !== 'write')
      return { kind: 'answer', result: answeredResult(`${this.#callId}:ptc:${seq}`, name, planned.outcome) };
    this.#sent.add(seq);
    return { kind: 'live', idempotencyKey: `run:${this.#record.planId}:${seq}` };
  }

  settled(seq: number, name: string, args: JsonValue, result: ToolResult): { at: number; stop?: PlanStop } {
    const planned = this.#calls.get(seq);
    const at = planned?.at ?? Date.now();
    if (planned?.kind !== 'write') return { at };
    if (result.isError) {
      // Cut off (aborted, timed out, cancelled) after it was dispatched: its body may still
      // apply, so it is neither applied nor failed (see `unsettled`).
      if (!CUT_OFF.has(result.error?.code ?? '')) this.#failed.add(seq);
      const message = `write #${seq} ${shownCall(name, args)} failed (${result.error?.code ?? 'TOOL_ERROR'}: ${result.error?.message ?? 'tool call failed'}); the commit stopped there.`;
      return { at, stop: { kind: 'commit-failed', code: PLAN_ERROR_CODES.COMMIT_FAILED, message } };
    }
    this.#applied.set(seq, { seq, name, arguments: args, result: result.value ?? null });
    if (seq === this.#pivotSeq)
      return {
        at,
        stop: { kind: 'pivot', code: 'PLAN_PIVOT', message: `the partial plan ended at its pivot write #${seq}` },
      };
    return { at };
  }

  refused(seq: number, name: string, code: string): PlanStop | undefined {
    const planned = this.#calls.get(seq);
    if (planned === undefined || planned.kind === 'refused') return undefined;
    return {
      kind: 'plan-mismatch',
      code: PLAN_ERROR_CODES.PLAN_MISMATCH,
      message: `call #${seq} tools.${name} was refused before it could run (${code}) where the plan has ${shownCall(planned.name, planned.arguments)}: the commit stopped there.`,
    };
  }

  /** A planned write the program never made (it ended early): the first one, for PLAN_MISMATCH. */
  missingWrite(): PlanCall | undefined {
    return this.#record.calls.find((c) => c.kind === 'write' && !this.#sent.has(c.seq));
  }
}
