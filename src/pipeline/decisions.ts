// Decisions returned by pre-execute and post-execute handlers, and their constructors.
import type { JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ContextMessage } from './tool-result.ts';

export interface ApprovalRequestInput {
  /** Shown to the user; defaults to a description of the call. */
  readonly title?: string;
  readonly detail?: JsonValue;
}

export type PreDecision =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reason: string; readonly info?: { readonly [key: string]: JsonValue } }
  | { readonly kind: 'cancel'; readonly reason?: string }
  | { readonly kind: 'ask'; readonly request: ApprovalRequestInput };

export const allow = (): PreDecision => Object.freeze({ kind: 'allow' });
export const deny = (reason: string, info?: { readonly [key: string]: JsonValue }): PreDecision =>
  Object.freeze(info === undefined ? { kind: 'deny', reason } : { kind: 'deny', reason, info });
export const cancel = (reason?: string): PreDecision =>
  Object.freeze(reason === undefined ? { kind: 'cancel' } : { kind: 'cancel', reason });
export const ask = (request: ApprovalRequestInput = {}): PreDecision => Object.freeze({ kind: 'ask', request });

export interface AcceptChanges {
  /** Replace the canonical value (re-validated and re-rendered). Successes only; not with `content`. */
  readonly value?: JsonValue;
  /** Replace the model-facing content; the canonical value stays. Not with `value`. */
  readonly content?: readonly ContentBlock[];
  readonly additionalContexts?: readonly ContextMessage[];
}

export type PostDecision =
  | { readonly kind: 'accept'; readonly changes: AcceptChanges }
  | { readonly kind: 'block'; readonly feedback: string; readonly additionalContexts: readonly ContextMessage[] };

export const accept = (changes: AcceptChanges = {}): PostDecision => Object.freeze({ kind: 'accept', changes });
/** Turns the outcome into a `BLOCKED` error. Side effects are not rolled back; body contexts are dropped. */
export const block = (
  feedback: string,
  options: { readonly additionalContexts?: readonly ContextMessage[] } = {},
): PostDecision => Object.freeze({ kind: 'block', feedback, additionalContexts: options.additionalContexts ?? [] });
