// The shapes a tool execution produces. A ToolResult is frozen, plain JSON.
import type { JsonValue } from '../json/json-value.ts';

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}
export interface ImageBlock {
  readonly type: 'image';
  /** Base64 data. */
  readonly data: string;
  readonly mimeType: string;
}
export type ContentBlock = TextBlock | ImageBlock;

/** A user message attached to a result; it reaches the model after all results of the step. */
export interface ContextMessage {
  readonly role: 'user';
  readonly content: readonly ContentBlock[];
}

export interface ToolErrorInfo {
  readonly code: string;
  readonly message: string;
  readonly info?: { readonly [key: string]: JsonValue };
}

export interface ToolResult {
  readonly callId: string;
  readonly name: string;
  readonly isError: boolean;
  /** The canonical value (successes only). Programs read this; models read `content`. */
  readonly value?: JsonValue;
  readonly content: readonly ContentBlock[];
  readonly error?: ToolErrorInfo;
  readonly additionalContexts?: readonly ContextMessage[];
  /** Only on a final success whose execution called `concludeTurn()`. */
  readonly concludesTurn?: true;
  /** UI-only data from `presentationMeta`, for top-level direct calls. */
  readonly presentationMeta?: JsonValue;
}
