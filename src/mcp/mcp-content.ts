// MCP content blocks ↔ our content blocks. MCP has more kinds (audio, resource
// links, embedded resources) than a ToolResult carries: those become short text.
import type { ContentBlock as McpContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock, ImageBlock } from '../pipeline/tool-result.ts';

/** Our content as MCP content (text and image map one to one). */
export const toMcpContent = (content: readonly ContentBlock[]): McpContentBlock[] =>
  content.map((b) =>
    b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image', data: b.data, mimeType: b.mimeType },
  );

/** One MCP block as text: text as is, an embedded text resource's text, anything else as a `[kind …]` marker. */
function blockText(block: McpContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}]`;
    case 'resource_link':
      return `[resource ${block.uri}]`;
    case 'resource':
      return 'text' in block.resource && typeof block.resource.text === 'string'
        ? block.resource.text
        : `[resource ${block.resource.uri}]`;
    default:
      return `[${(block as { type: string }).type}]`;
  }
}

/** The text an MCP result carries (its canonical value when it has no structuredContent). */
export const mcpContentText = (content: readonly McpContentBlock[]): string => content.map(blockText).join('\n');

/** The image blocks of an MCP result, as our image blocks. */
export const mcpImages = (content: readonly McpContentBlock[]): ImageBlock[] =>
  content.flatMap((b) => (b.type === 'image' ? [{ type: 'image' as const, data: b.data, mimeType: b.mimeType }] : []));
