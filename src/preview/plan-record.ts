// What a preview records: every call of the program in program order (seq) — the reads
// with the answer the program got, the writes the plan holds, the calls refused before
// they could run — and what makes the commit's re-run see the same world: the program
// text, its seed and clock. The commit re-runs the program against this record.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../json/canonical-json.ts';
import type { JsonValue } from '../json/json-value.ts';

/** What the program got for a call answered in the preview (and is answered with again in the commit). */
export type RecordedOutcome =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** One call of the previewed program. */
export interface PlanCall {
  /** 1-based, program order (stable under Promise.all). */
  readonly seq: number;
  readonly name: string;
  readonly arguments: JsonValue;
  /** `read`: ran live; `write`: in the plan, not run; `refused`: failed before it could run (the commit answers it the same way). */
  readonly kind: 'read' | 'write' | 'refused';
  /** Reads and refusals: what the program got. Writes: the stand-in it got. */
  readonly outcome: RecordedOutcome;
  /** When the program got it (its clock moves to this time in the commit too). */
  readonly at: number;
  /** Writes: a one-line title from the tool's `presentCall`, when it gives a string. */
  readonly title?: string;
}

/** One write of a plan, as shown to whoever approves it. */
export interface PlannedWrite {
  readonly seq: number;
  readonly name: string;
  readonly arguments: JsonValue;
  readonly title?: string;
}

/** Everything a commit needs, kept by the runtime (in memory, or in the journal's store). */
export interface PlanRecord {
  readonly planId: string;
  readonly agent: string | null;
  readonly principal: string | null;
  readonly description: string;
  readonly code: string;
  /** The program's seed and start clock, so the commit sees the same random numbers and time. */
  readonly seed: string;
  readonly clockStartMs: number;
  readonly calls: readonly PlanCall[];
  /** The preview stopped at a pivot write: the plan ends there. */
  readonly partial: boolean;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The plan waits for an operator's approval before it can be committed (`planApproval`). */
  readonly approval?: true;
}

/** The writes of a plan, in program order. */
export function plannedWrites(record: PlanRecord): PlannedWrite[] {
  return record.calls
    .filter((c) => c.kind === 'write')
    .map((c) => ({
      seq: c.seq,
      name: c.name,
      arguments: c.arguments,
      ...(c.title === undefined ? {} : { title: c.title }),
    }));
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** SHA-256 of the program text (description and code): what the token binds the commit's program to. */
export function programDigest(description: string, code: string): string {
  return sha256(canonicalJson([description, code]));
}

/** SHA-256 of everything the commit relies on: a changed record no longer matches its token. */
export function planDigest(record: PlanRecord): string {
  return sha256(canonicalJson(record));
}

/** `tools.name(args)` with long arguments cut, for messages. */
export function shownCall(name: string, args: unknown): string {
  const text = canonicalJson(args ?? null);
  return `tools.${name}(${text.length > 200 ? `${text.slice(0, 200)}…` : text})`;
}
