// Results whose content a post-execute handler replaced while the value stayed: a
// redaction, typically. Whoever sends the value anywhere beside the content (the MCP
// server's structuredContent) must not, or the redacted data leaves through it.
import type { ToolResult } from './tool-result.ts';

const replaced = new WeakSet<ToolResult>();

export function markContentReplaced(result: ToolResult): void {
  replaced.add(result);
}

/** True for a final result whose content post-execute replaced with `accept({ content })`. */
export function isContentReplaced(result: ToolResult): boolean {
  return replaced.has(result);
}
