// Why a preview's plan was not committed: a stable code, a message that says what to do.
import type { JsonValue } from '../json/json-value.ts';
import { ToolRuntimeError } from './tool-runtime-error.ts';

/** Every code a PlanError (and a previewing or committing run_code result) can carry. */
export const PLAN_ERROR_CODES = {
  /** The commit's program made a call other than the plan's at the same place, or a write not in the plan: it did not run. */
  PLAN_MISMATCH: 'PLAN_MISMATCH',
  /** `revalidate: true`: a read gave another answer than in the preview; no write ran. */
  PLAN_STALE: 'PLAN_STALE',
  /** The plan was already committed (a token is good for one commit). */
  PLAN_USED: 'PLAN_USED',
  /** The token is past its `expiresAt` (`planTtlMs`). */
  PLAN_EXPIRED: 'PLAN_EXPIRED',
  /** The token is not one this runtime sealed, was changed, or belongs to another agent or principal. */
  PLAN_INVALID: 'PLAN_INVALID',
  /** The preview's record (every call with its answer) is larger than `maxPlanBytes`: no plan was made. */
  PLAN_TOO_LARGE: 'PLAN_TOO_LARGE',
  /** A write of the commit failed: the writes it had applied were undone where they could be (see `info.commit`). */
  COMMIT_FAILED: 'COMMIT_FAILED',
  /** The plan waits for an operator's approval (`planApproval`): nothing ran; commit again once approved. */
  PLAN_NOT_APPROVED: 'PLAN_NOT_APPROVED',
  /** An operator rejected the plan: it can never be committed. */
  PLAN_REJECTED: 'PLAN_REJECTED',
  /** `rt.decidePlan`: the plan was already decided the other way (the first decision stands). */
  PLAN_DECIDED: 'PLAN_DECIDED',
  /** `rt.resumeUndo`: the journal has no undo of that plan (in the caller's scope). */
  UNDO_UNKNOWN: 'UNDO_UNKNOWN',
  /** `rt.resumeUndo`: another live process is running that undo. */
  UNDO_BUSY: 'UNDO_BUSY',
  /** `rt.resumeUndo`: this runtime lacks a tool the undo reverts through; nothing ran. */
  UNDO_TOOL_MISSING: 'UNDO_TOOL_MISSING',
} as const;

/** One of PLAN_ERROR_CODES. */
export type PlanErrorCode = (typeof PLAN_ERROR_CODES)[keyof typeof PLAN_ERROR_CODES];

/** Thrown by `rt.preview` / `rt.commit`, and the error of a run_code call that previews or commits. */
export class PlanError extends ToolRuntimeError {
  /** Structured detail (a run_code result carries it as `error.info`). */
  readonly info: { readonly [key: string]: JsonValue };
  constructor(code: PlanErrorCode | string, message: string, info: { readonly [key: string]: JsonValue } = {}) {
    super(code, message, info);
    this.info = info;
  }
}
