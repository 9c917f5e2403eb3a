// Bounds on what an MCP client names its requests with. A JSON-RPC request id becomes
// the call's callId, which every nested call, journal event and run event repeats; a
// progress token is repeated in every progress notification. Both are bounded here, at
// the server boundary, so their cost is not multiplied by the calls a run makes.
import { createHash } from 'node:crypto';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** A request id longer than this (as text) is not used in the callId: its SHA-256 is. */
export const MAX_REQUEST_ID_CHARS = 64;

/** A progress token longer than this (as text) is refused (-32602): it must be echoed verbatim, so it cannot be shortened. */
export const MAX_PROGRESS_TOKEN_CHARS = 256;

/** The callId of a tools/call request: prefix + id, or prefix + `sha256:` + the id's hash when the id is long. */
export function requestCallId(prefix: string, requestId: string | number): string {
  const id = String(requestId);
  if (id.length <= MAX_REQUEST_ID_CHARS) return `${prefix}${id}`;
  return `${prefix}sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/** Throws an MCP invalid-params error (without echoing the token) when a progress token is too long. */
export function checkProgressToken(token: string | number): void {
  const length = String(token).length;
  if (length > MAX_PROGRESS_TOKEN_CHARS) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `_meta.progressToken is ${length} characters, more than the ${MAX_PROGRESS_TOKEN_CHARS} this server accepts (MAX_PROGRESS_TOKEN_CHARS)`,
    );
  }
}
